"""The gen-matrix command: `python -m generator`, and the `gen-matrix` script.

A run keeps tens of thousands of objects alive (variants, their contexts, the texts) and makes
few cycles: with its default of a pass per 700 new objects, the cyclic collector took 12 - 16
ms of a 2,000-variant run to find some 600 objects, so it runs less often, from before the
first import. At the end the process exits without freeing its objects one by one (about 13
ms), once its output is flushed; an error that is not an exit still ends the usual way, with
its traceback.
"""

import gc
import os
import sys


def run() -> None:
    gc.set_threshold(100_000, 50, 50)
    from .cli import main

    try:
        main(prog_name="gen-matrix")
    except SystemExit as done:
        if done.code is not None and not isinstance(done.code, int):
            raise
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # a closed pipe: let Python's own exit deal with it
            raise done from None
        os._exit(done.code or 0)


if __name__ == "__main__":
    run()
