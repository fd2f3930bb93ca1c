"""generator/pin.py with several trees: whether a folder is gen-matrix's own source tree does not
hang on the machine's locale. pyproject.toml is UTF-8 (TOML says so), and one that holds text
beyond ASCII (an author's name, a dash) is read as such under any locale, as on Windows."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO

# a pyproject.toml -> whether its folder is gen-matrix's own source tree
TREES = {
    "ascii-own": ('[project]\nname = "gen-matrix"\n', True),
    "utf8-own": ('[project]\nname = "gen-matrix"\ndescription = "PyTorch builds — every GPU"\n'
                 'authors = [{ name = "Zoë Ångström" }]\n', True),
    "ascii-other": ('[project]\nname = "my-builds"\n', False),
    "utf8-other": ('[project]\nname = "my-builds"\ndescription = "Ça build — café"\n', False),
}
# the C locale: its text encoding is ASCII where UTF-8 mode and locale coercion are off
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
PROGRAM = """
import locale, sys
from pathlib import Path
from generator import pin
print(locale.getpreferredencoding(False))
for folder in sys.argv[1:]:
    print(pin.is_checkout(Path(folder)))
"""


def test_a_tree_s_pyproject_is_read_as_utf8_whatever_the_locale(tmp_path):
    folders = []
    for name, (text, _) in sorted(TREES.items()):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pyproject.toml").write_bytes(text.encode("utf-8"))
        folders.append(str(tmp_path / name))
    env = {**os.environ, **ASCII_LOCALE, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", PROGRAM, *folders], cwd=REPO, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)
    assert done.returncode == 0, done.stderr
    encoding, *answers = done.stdout.split()
    if encoding.lower().replace("-", "") == "utf8":
        pytest.skip("this machine's C locale reads text as UTF-8")
    assert answers == [str(TREES[name][1]) for name in sorted(TREES)]
