"""The gen-matrix command: `python -m generator`, and the `gen-matrix` script."""

from .cli import main


def run() -> None:
    main(prog_name="gen-matrix")


if __name__ == "__main__":
    run()
