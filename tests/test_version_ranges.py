"""knowledge.in_range: the version ranges of fixes, workarounds and sources, clause by clause."""

from __future__ import annotations

import pytest

from generator.knowledge import in_range


@pytest.mark.parametrize(("version", "spec", "holds"), [
    # each operator, on both sides of its bound
    ("13.0", ">=13.0", True), ("12.9", ">=13.0", False),
    ("13.0", ">13.0", False), ("13.1", ">13.0", True),
    ("13.0", "<=13.0", True), ("13.1", "<=13.0", False),
    ("12.9", "<13.0", True), ("13.0", "<13.0", False),
    ("13.0", "==13.0", True), ("13.1", "==13.0", False),
    ("13.1", "!=13.0", True), ("13.0", "!=13.0", False),
    # a clause compares as many parts as it writes
    ("13.0.2", "==13.0", True), ("13.0.2", "<13.1", True), ("13.0.2", "!=13.0", False),
    ("2.10.0", ">=2.10", True), ("2.9.1", ">=2.10", False), ("2.10.1", "<=2.10", True),
    ("13", "==13.0", True), ("13", "<13.1", True), ("2", ">=2.1", False),
    ("2.13.0", "==2", True), ("3.0", "<3", False),
    # versions compare as numbers, not text
    ("2.10", ">2.9", True), ("2.9", "<2.10", True), ("12.10", ">12.9", True),
    # every clause must hold
    ("13.0", ">=13.0,<13.1", True), ("13.0.9", ">=13.0, <13.1", True), ("13.1", ">=13.0,<13.1", False),
    ("12.9", ">=13.0,<13.1", False), ("2.7.1", ">=2.6,<2.8", True), ("2.8.0", ">=2.6,<2.8", False),
    (" 2.7", ">= 2.6", True),
])
def test_each_operator_and_partial_version(version, spec, holds):
    assert in_range(version.strip(), spec) is holds
