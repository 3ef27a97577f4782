"""Shared pieces of the mxv Python tests: the repository root (for the committed golden files)."""

import pathlib

REPO = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = REPO / "golden"
