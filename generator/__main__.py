"""The gen-matrix command: `python -m generator`, and the `gen-matrix` script."""

import gc

# A run makes many objects and few cycles: collect the youngest generation after 50,000
# allocations, not 700, and cycles are still collected, with memory bounded as before.
gc.set_threshold(50_000, 20, 20)

from .cli import main  # noqa: E402


def run() -> None:
    try:
        main(prog_name="gen-matrix")
    finally:
        # What the run made is freed as the process ends. The collections Python makes as it
        # exits would first walk all of it once more for cycles (25 to 30 ms of CPU at 2,000
        # variants), so it is frozen: those collections skip it.
        gc.freeze()


if __name__ == "__main__":
    run()
