#!/usr/bin/env python3
"""Checks that the repository explains itself (docs/verification.md section 8).

Scans every file of the tree and reports, as "path:line: message", each place where a file
  1. cites a Markdown document (a name ending in .md) that does not exist, resolved against the
     citing file's folder, the repository root and docs/;
  2. cites a numbered section ("docs/semantics.md section 4.2", "sections 4-5") of an existing
     Markdown document that has no heading with that number;
  3. names one of the design-input documents that live outside the repository, an absolute
     machine path of the development machines, a tracker issue by number, or a work-split marker
     ("kernels-" followed by a capital letter) that only meant something while the code was
     being written.

Files come from `git ls-files` (tracked plus untracked-but-not-ignored) when ROOT is a git
checkout and git is installed, else from a walk that skips build trees and hidden folders.
Binary files are skipped. Exit status: 0 clean, 1 findings, 2 bad usage (or nothing to scan).

  python3 tests/docs/check_references.py [--root DIR] [--no-git]

The patterns below are written so that this file does not match them itself.
"""
import argparse
import os
import re
import subprocess
import sys

# Rule 3. Each pattern is spelled so that its own source text is not a match.
OUTSIDE_DOCS = re.compile(r"\b(?:SEMANTICS|DESIGN|STYLE)\.md\b")
MACHINE_PATH = re.compile("/" + "work" + "/")
ISSUE_NUMBER = re.compile(r"\bissue\s+#?[0-9]+\b", re.IGNORECASE)
SPLIT_MARKER = re.compile(r"\bkernels-[A-Z]\b")
FORBIDDEN = [
    (OUTSIDE_DOCS, "names a design-input document that is not in the repository; cite docs/ instead"),
    (MACHINE_PATH, "contains a machine path; cite a file of the repository instead"),
    (ISSUE_NUMBER, "refers to a tracker issue by number; say why in the present tense instead"),
    (SPLIT_MARKER, "carries a work-split marker; describe what the code is instead"),
]

# Rule 1: a path-like token ending in .md, not preceded by a path character (so a folder and the
# name after it form one token). URLs are removed from the text before matching.
MD_TOKEN = re.compile(r"(?<![\w./-])([\w.-][\w./-]*\.md)\b")
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")

# Rule 2: "<doc>.md[ 's][,] section(s) N[.M][ (-|,|and|to) N[.M]]...", possibly across a line break
# with comment markers in between.
SECTION_CITE = re.compile(
    r"(?<![\w./-])([\w.-][\w./-]*\.md)(?:'s)?,?(?:\s|//+|#+|\*+)*sections?\s+"
    r"(\d+(?:\.\d+)*)((?:\s*(?:-|,|and|to)\s*\d+(?:\.\d+)*)*)")
SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)*")
HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s")

SKIP_DIRS = {"__pycache__", "node_modules"}


def list_files(root, use_git=True):
    """Relative paths of the files to scan."""
    try:
        if not use_git:
            raise OSError("git not wanted")
        inside = subprocess.run(["git", "-C", root, "rev-parse", "--is-inside-work-tree"],
                                capture_output=True, text=True, check=False)
        if inside.returncode == 0 and inside.stdout.strip() == "true":
            out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                                  "--exclude-standard"], capture_output=True, check=True).stdout
            names = sorted({n for n in out.decode("utf-8", "replace").split("\0") if n})
            return [n for n in names if os.path.isfile(os.path.join(root, n))]
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and not d.startswith("build") and d not in SKIP_DIRS)
        for f in sorted(filenames):
            found.append(os.path.relpath(os.path.join(dirpath, f), root))
    return found


def read_text(path):
    """The file's text, or None for a binary file."""
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def resolve(root, rel_file, token):
    """The existing path a cited .md token names, or None."""
    if token.startswith("/"):
        return None
    token = token[2:] if token.startswith("./") else token
    for base in (os.path.dirname(os.path.join(root, rel_file)), root, os.path.join(root, "docs")):
        candidate = os.path.normpath(os.path.join(base, token))
        if os.path.isfile(candidate):
            return candidate
    return None


_heading_cache = {}


def headings(path):
    """Section numbers of a Markdown file's numbered headings ("4", "4.2", ...)."""
    if path not in _heading_cache:
        numbers = set()
        text = read_text(path) or ""
        for line in text.splitlines():
            m = HEADING.match(line)
            if m:
                numbers.add(m.group(1))
        _heading_cache[path] = numbers
    return _heading_cache[path]


def scan_file(root, rel):
    """Findings (line, message) of one file."""
    text = read_text(os.path.join(root, rel))
    if text is None:
        return []
    findings = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        for pattern, message in FORBIDDEN:
            if pattern.search(line):
                findings.append((number, message + ": " + line.strip()[:120]))
        for m in MD_TOKEN.finditer(URL.sub(" ", line)):
            if resolve(root, rel, m.group(1)) is None:
                findings.append((number, "cites %s, which does not exist in the repository "
                                 "(looked next to the file, at the root and in docs/)" % m.group(1)))
    # Line starts, to turn an offset into a line number for citations that span lines.
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    unlinked = URL.sub(lambda u: " " * len(u.group(0)), text)
    for m in SECTION_CITE.finditer(unlinked):
        target = resolve(root, rel, m.group(1))
        if target is None:
            continue  # already reported as a missing document
        cited = [m.group(2)] + SECTION_NUMBER.findall(m.group(3))
        known = headings(target)
        line_no = next(i for i in range(len(starts)) if starts[i + 1] > m.start()) + 1
        for section in cited:
            if section not in known:
                findings.append((line_no, "cites %s section %s, but %s has no heading numbered %s"
                                 % (m.group(1), section, os.path.relpath(target, root), section)))
    return findings


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."),
                        help="repository root (default: two folders above this script)")
    parser.add_argument("--no-git", action="store_true", help="walk the tree even inside a git checkout")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print("check_references: --root %s is not a folder" % root, file=sys.stderr)
        return 2
    files = list_files(root, use_git=not args.no_git)
    if not files:
        print("check_references: no files found under %s; nothing was checked" % root, file=sys.stderr)
        return 2
    total = 0
    for rel in files:
        for line, message in scan_file(root, rel):
            print("%s:%d: %s" % (rel, line, message))
            total += 1
    if total:
        print("check_references: %d finding(s) in %d files scanned under %s" % (total, len(files), root))
        return 1
    print("check_references: %d files scanned under %s, every cited document and section exists"
          % (len(files), root))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
