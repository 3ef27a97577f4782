#!/usr/bin/env python3
"""Proves that check_references.py can fail (docs/verification.md section 8).

Builds small trees in a temporary folder, runs the scanner on them as a separate process, and
requires: a clean tree passes (exit 0); a tree with one planted defect of each kind fails (exit 1)
and reports exactly the planted files and lines, no more and no fewer; files under a build tree
are not scanned; an empty tree is a usage error (exit 2), so a scanner that finds nothing to scan
cannot pass. The forbidden words are assembled from pieces so that this file does not trip the
scanner when it scans the repository.
"""
import os
import re
import subprocess
import sys
import tempfile

SCANNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_references.py")

MD = ".m" + "d"  # file suffix, assembled so that the scanner does not read citations here

DOC = "# A\n\n## 1. One\n\n### 1.1 Sub\n\n## 2. Two\n"


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(root):
    p = subprocess.run([sys.executable, SCANNER, "--root", root, "--no-git"], capture_output=True, text=True)
    reported = set()
    for line in p.stdout.splitlines():
        m = re.match(r"^(.+?):(\d+): ", line)
        if m:
            reported.add((m.group(1), int(m.group(2))))
    return p.returncode, reported, p.stdout + p.stderr


def clean_tree(root):
    write(root, "docs/a" + MD, DOC)
    write(root, "README" + MD, "See [the doc](docs/a" + MD + "#1-one) and docs/a" + MD + " section 1.1.\n")
    write(root, "src/x.cpp", "// Rules: docs/a" + MD + " sections 1-2; layout in a" + MD + " section 1.1.\n"
                             "// Multi-line: docs/a" + MD + "\n// section 2. Also https://example.org/NOPE" + MD + "\n"
                             "int issues_8_stores = 0;  // each lane issues 8 stores\n")
    write(root, "docs/b" + MD, "Next to this file: a" + MD + " section 1.\n")


failures = []


def expect(name, cond, detail):
    if not cond:
        failures.append("%s: %s" % (name, detail))
    print("%s %s" % ("ok  " if cond else "FAIL", name))


def main():
    with tempfile.TemporaryDirectory() as root:
        clean_tree(root)
        rc, reported, out = run(root)
        expect("clean tree passes", rc == 0 and not reported, "rc=%d\n%s" % (rc, out))

        planted = {
            ("src/missing_doc.h", 3): "// line one\n// line two\n// rules in docs/nowhere" + MD + "\n",
            ("src/missing_section.cpp", 2): "int a;\n// see docs/a" + MD + " section 9\n",
            ("src/missing_range_end.cpp", 1): "// docs/a" + MD + " sections 1-3\n",
            ("src/split_line.cpp", 1): "// docs/a" + MD + "\n// section 1.7, across a line break\n",
            ("src/outside_doc.py", 4): "\n\n\n# rules: " + "SEMAN" + "TICS" + ".md 4\n",
            ("src/machine_path.h", 2): "//\n// from " + "/wo" + "rk/shared/notes.txt\n",
            ("src/tracker.cpp", 1): "// " + "Iss" + "ue 12" + ": shapes\n",
            ("src/marker.txt", 1): "# " + "kernels" + "-B launchers\n",
            ("docs/c" + MD, 1): "Relative to docs/: missing" + MD + " is not there.\n",
        }
        for (rel, _), text in planted.items():
            write(root, rel, text)
        # A build tree is not part of the repository: a defect there must not be reported.
        write(root, "build/cpu/generated.h", "// docs/nowhere" + MD + "\n")
        rc, reported, out = run(root)
        expect("planted defects fail the scan", rc == 1, "rc=%d\n%s" % (rc, out))
        expect("every planted defect is reported at its line", set(planted) <= reported,
               "missing %s\n%s" % (sorted(set(planted) - reported), out))
        expect("nothing else is reported", reported <= set(planted),
               "unexpected %s\n%s" % (sorted(reported - set(planted)), out))

    with tempfile.TemporaryDirectory() as root:
        rc, reported, out = run(root)
        expect("an empty tree is a usage error", rc == 2, "rc=%d\n%s" % (rc, out))

    if failures:
        print("\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
