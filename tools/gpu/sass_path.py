#!/usr/bin/env python3
"""The instructions one thread executes along a path through a kernel's SASS: the count that
BENCHMARKS.md puts beside its figures ("instructions per slot"), read off a cubin without a GPU.

  python3 tools/gpu/sass_path.py CUBIN FUNCTION START [--stop ADDR] [--take ADDR ...] [--list] [--print]

  CUBIN     a cubin (nvcc -cubin ...) or the text `cuobjdump -sass` printed for one
  FUNCTION  a substring of the mangled name of the one function to walk
  START     the hex address the walk starts at (a slot loop's head, say)
  --stop    where it ends (default: the first time it comes back to START, i.e. one loop trip)
  --take    conditional branches to take (hex addresses); every other conditional branch falls
            through, except one back to START when the walk ends there. Each conditional branch
            met is listed with the choice made, so a walk is corrected by adding the branches it
            should have taken.
  --list    print the function's backward branches (loop heads) and exit
  --print   print every instruction of the path

The cubin is disassembled with cuobjdump (from PATH, or $CUOBJDUMP; the pip package
nvidia-cuda-cuobjdump carries it where a toolkit lacks it). Instructions are counted as
issued: a predicated-off instruction counts, as it issues on the GPU; a branch counts once.
`BRA.U.ANY` retry loops (the bulk-copy issue) are not followed. Exit status 0, 1 when the walk
reaches an unpredicated EXIT, leaves the function or runs 10,000 instructions without reaching its
stop, 2 on bad usage.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PREDICATE = r"@!?U?P[T0-9]+\s+"  # the guard an instruction may carry: @P0, @!UP1, @PT
BRANCH = re.compile(r"^(?P<pred>" + PREDICATE + r")?BRA(?P<mods>\.[A-Z.]+)?\s+(?:\w+\s*,\s*)?(?P<target>0x[0-9a-f]+)")


def functions(sass_text):
    """{mangled name: [(address, instruction text)]} from `cuobjdump -sass` output."""
    out = {}
    current = None
    for line in sass_text.splitlines():
        if "Function :" in line:
            current = line.split("Function :", 1)[1].strip()
            out[current] = []
            continue
        m = LINE.match(line)
        if m and current is not None:
            out[current].append((int(m.group(1), 16), m.group(2).strip()))
    return out


def opcode(text):
    t = re.sub("^" + PREDICATE, "", text)
    return t.split()[0].split(".")[0]


def walk(instructions, start, stop=None, take=(), limit=10000):
    """The path from `start`: (list of (address, text), list of (address, text, taken), ended)."""
    index = {a: i for i, (a, _) in enumerate(instructions)}
    if start not in index:
        raise ValueError(f"no instruction at {start:#x}")
    stop = start if stop is None else stop
    path, branches = [], []
    i = index[start]
    while len(path) < limit:
        if i >= len(instructions):
            return path, branches, False
        a, text = instructions[i]
        path.append((a, text))
        if text.startswith("EXIT"):  # the thread ends here, not at the stop
            return path, branches, False
        m = BRANCH.match(text)
        nxt = i + 1
        if m and ".U.ANY" not in (m.group("mods") or ""):
            target = int(m.group("target"), 16)
            # A branch back to START closes the one trip the walk follows.
            taken = m.group("pred") is None or a in take or (target == start and stop == start)
            if m.group("pred") is not None:
                branches.append((a, text, taken))
            if taken:
                if target not in index:
                    return path, branches, False
                nxt = index[target]
        if nxt < len(instructions) and instructions[nxt][0] == stop:
            return path, branches, True
        i = nxt
    return path, branches, False


def backward_branches(instructions):
    out = []
    for a, text in instructions:
        m = BRANCH.match(text)
        if m and int(m.group("target"), 16) <= a:
            out.append((a, text))
    return out


def sass_of(path):
    with open(path, "rb") as f:
        head = f.read(4)
    if head != b"\x7fELF":
        with open(path) as f:
            return f.read()
    tool = os.environ.get("CUOBJDUMP", "cuobjdump")
    r = subprocess.run([tool, "-sass", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{tool} -sass {path} failed: {r.stderr.strip()}")
    return r.stdout


def main(argv):
    p = argparse.ArgumentParser(prog="sass_path.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cubin")
    p.add_argument("function")
    p.add_argument("start", nargs="?")
    p.add_argument("--stop")
    p.add_argument("--take", nargs="*", default=[])
    p.add_argument("--list", action="store_true")
    p.add_argument("--print", action="store_true")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        funcs = functions(sass_of(a.cubin))
        names = [n for n in funcs if a.function in n]
        if len(names) != 1:
            raise ValueError(f"'{a.function}' names {len(names)} functions of {len(funcs)}; give a longer substring")
        ins = funcs[names[0]]
        if a.list:
            for addr, text in backward_branches(ins):
                print(f"{addr:05x} {text}")
            return 0
        if a.start is None:
            raise ValueError("START is needed unless --list")
        start = int(a.start, 16)
        stop = int(a.stop, 16) if a.stop else None
        take = {int(t, 16) for t in a.take}
        path, branches, ended = walk(ins, start, stop, take)
    except (ValueError, RuntimeError, OSError) as e:
        print(f"sass_path.py: {e}", file=sys.stderr)
        return 2
    if a.print:
        for n, (addr, text) in enumerate(path, 1):
            print(f"{n:5d} {addr:05x} {text}")
    for addr, text, taken in branches:
        print(f"branch {addr:05x} {'taken' if taken else 'falls through'}: {text}")
    ops = collections.Counter(opcode(t) for _, t in path)
    print(f"{len(path)} instructions" + ("" if ended else " (the walk did not reach its stop: an EXIT, the limit or the function's end)"))
    print(", ".join(f"{op} {n}" for op, n in ops.most_common()))
    return 0 if ended else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
