#!/usr/bin/env python3
"""The cross-language example (golden/examples/numpy_nvfp4_candidate.py) end to end, as its users
run it: `mxv golden template`, the numpy quantizer fills the candidate with h5py, `mxv golden check
--candidate` reports. Asserts which cases fail and in which mismatch classes (the example's
mistakes are documented in its docstring), and two controls: the unfilled template reports
never-written, and the committed expectations copied in pass.

Usage: numpy_nvfp4_candidate_test.py MXV EXAMPLE GOLDEN_DIR. Exit 77 (skipped) without numpy/h5py.
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401
    import numpy  # noqa: F401
except ImportError as e:
    print(f"skipped: {e} (ci/install-deps installs numpy and h5py)")
    sys.exit(77)

MXV, EXAMPLE, GOLDEN_DIR = sys.argv[1:4]
CASES = ["quantize.nvfp4_te.7x400.linear.fp32", "quantize.nvfp4_te.256x32.swizzled.bf16"]
# Case -> the classes its report must show (the example's docstring says why each one appears).
EXPECTED = {
    "quantize.nvfp4_te.7x400.linear.fp32": {"nan-policy", "sign-of-zero", "tie-flip", "other"},
    "quantize.nvfp4_te.256x32.swizzled.bf16": {"sign-of-zero", "other"},
}
failures = []


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def verdicts(report):
    """{case: (verdict, {class: count})} from the check --candidate table."""
    out = {}
    for line in report.splitlines():
        m = re.match(r"^  (\S+)\s+(PASS|FAIL)\s*(.*)$", line)
        if m:
            classes = {}
            for part in filter(None, m.group(3).split(", ")):
                name, count = part.rsplit(" ", 1)
                classes[name] = int(count)
            out[m.group(1)] = (m.group(2), classes)
    return out


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)


with tempfile.TemporaryDirectory() as tmp:
    cand = os.path.join(tmp, "candidate.h5")
    template = [MXV, "golden", "template", "-o", cand] + [a for c in CASES for a in ("--case", c)]

    # Control 1: the unfilled template is never-written (and, for swizzled scales, nonzero
    # padding: the fill byte sits where zeros belong).
    code, out, err = run(*template)
    expect(code == 0, f"template exits 0 (got {code}: {err})")
    code, out, _ = run(MXV, "golden", "check", "--candidate", cand)
    v = verdicts(out)
    expect(code == 1, f"an unfilled candidate fails (exit {code})")
    for c in CASES:
        got = v.get(c, ("", {}))
        expect(got[0] == "FAIL" and "never-written" in got[1] and set(got[1]) <= {"never-written", "nonzero-padding"},
               f"{c}: unfilled outputs are never-written, got {got}")

    # Control 2: the committed expectations copied into the candidate pass.
    import h5py
    with h5py.File(os.path.join(GOLDEN_DIR, "quantize.h5"), "r") as g, h5py.File(cand, "r+") as f:
        for c in CASES:
            for name, ds in f[f"cases/{c}/outputs"].items():
                ds[...] = g[f"cases/{c}/expected/{name}"][...]
    code, out, _ = run(MXV, "golden", "check", "--candidate", cand)
    expect(code == 0, f"the reference's own outputs pass (exit {code}):\n{out}")

    # The example: a fresh template, filled by the numpy quantizer.
    run(*template)
    code, out, err = run(sys.executable, EXAMPLE, cand)
    expect(code == 0, f"the example runs (exit {code}: {err})")
    code, out, _ = run(MXV, "golden", "check", "--candidate", cand)
    print(out)
    v = verdicts(out)
    expect(code == 1, f"the numpy quantizer's mistakes fail the check (exit {code})")
    for c, classes in EXPECTED.items():
        got = v.get(c)
        expect(got is not None and got[0] == "FAIL", f"{c} fails")
        if got:
            expect(set(got[1]) == classes, f"{c}: classes {sorted(got[1])}, expected {sorted(classes)}")
    # Every listed mismatch names coordinates and codes (the report explains, not only counts).
    expect("expected 0x8 (-0), actual 0x0 (0)" in out, "the report shows a sign-of-zero pair of codes")

if failures:
    print(f"{len(failures)} expectation(s) failed")
    sys.exit(1)
print("all expectations hold")
