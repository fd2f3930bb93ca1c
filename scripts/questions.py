"""Ask the installed gen-matrix the questions of questions/gpus.yaml, each in an empty folder,
and print PASS or FAIL per question and a total. Exit 1 when any fails.

    python scripts/questions.py [questions/gpus.yaml]
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

QUESTIONS = Path(__file__).resolve().parent.parent / "questions" / "gpus.yaml"


def console_script() -> str:
    """The gen-matrix installed beside this Python (a venv's), else the one on PATH."""
    beside = Path(sys.executable).with_name("gen-matrix")
    found = str(beside) if beside.exists() else shutil.which("gen-matrix")
    if found is None:
        sys.exit("gen-matrix is not installed: pip install -e . first")
    return found


def failures(question: dict, done: subprocess.CompletedProcess) -> list[str]:
    # on one line: the answer is wrapped to fit a terminal, and a text may fall across a break
    output = " ".join((done.stdout + done.stderr).split())
    wrong = []
    if done.returncode != question["exit"]:
        wrong.append(f"exit {done.returncode}, not {question['exit']}")
    wrong += [f"lacks {text!r}" for text in question.get("has", ()) if " ".join(text.split()) not in output]
    wrong += [f"holds {text!r}" for text in question.get("lacks", ()) if " ".join(text.split()) in output]
    return wrong


def main(path: Path) -> int:
    command = console_script()
    questions = yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]
    failed = 0
    for question in questions:
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run([command, *shlex.split(question["ask"])], cwd=folder, capture_output=True,
                                  encoding="utf-8", errors="replace", timeout=120)
        wrong = failures(question, done)
        failed += bool(wrong)
        print(f"{'FAIL' if wrong else 'PASS'}  {question['name']}  (gen-matrix {question['ask']})")
        for line in wrong:
            print(f"      {line}")
        if wrong:
            print("      output:\n" + "".join(f"        {line}\n" for line in (done.stdout + done.stderr).splitlines()))
    print(f"{len(questions) - failed} of {len(questions)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else QUESTIONS))
