#!/usr/bin/env python3
"""A/B timing of kernel variants on one GPU, in one call: the working tree against copies of it with
a variant's changes applied, each built with the same preset, their benchmark run in turn for
several rounds, and one table of the fractions of copy each round printed (docs/design.md section 7
describes the method).

Why in turn: two runs of one binary on one GPU differ by up to a point of copy (clocks, the
machine's other tenants), more than many changes are worth. Variants run alternately, round after
round, in the same call, so a difference that holds in every round is the change's.

  python3 tools/gpu/ab_bench.py [--variant NAME=PATH]... [--rounds 3] [--keep REGEX]
                                [--preset gpu] [--jobs N] [--workdir DIR] [--log FILE]
                                [--no-build] [--build-only] [--reuse] [--build-command CMD]
                                -- BENCH [ARG...]

  BENCH       a benchmark target of the build (quantize_bench, dequantize_bench, mxv_device_bench)
              or a path relative to the build folder; ARG... are its options.
  --variant   NAME=DIR: the files under DIR laid over a copy of the tree (same relative paths);
              NAME=FILE.diff|FILE.patch: a unified diff (`git diff` output) applied to the copy.
              The tree itself is always the first variant, "tree".
  --keep      only result lines matching REGEX (Python syntax) enter the table.
  --build-only
              build the copies and stop; a later call with --reuse runs them without rebuilding
              (each copy keeps a stamp of the tree and variant it was made from).
  --build-command
              how a copy is built instead of `cmake --preset P && cmake --build --preset P --target
              BENCH -j N`; run by the shell in the copy, with MXV_AB_TARGET set to BENCH.

A result line is any line of the benchmark's output that ends in a fraction of copy: quantize_bench's
`NAME  T ms  B GB/s  F% of copy` or dequantize_bench's table rows `... T B F%`. Its key is the text
before the numbers. Exit status: 0 when every build and every run succeeded, 1 when one failed (the
table still shows what ran), 2 on bad usage.
"""
import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading

RESULT = re.compile(
    r"^(?P<key>\S.*?)\s+(?P<ms>\d+\.\d+)(?: ms)?\s+(?P<gbs>\d+(?:\.\d+)?)(?: GB/s)?\s+(?P<pct>\d+(?:\.\d+)?)%(?: of copy)?\s*$")
COPY = re.compile(r"^copy .*?->\s*(?P<gbs>\d+(?:\.\d+)?) GB/s")
TOP_LEVEL_SKIPPED = {"build", ".git", ".gpu"}


def skipped(at_top, name):
    """What a copy of the tree leaves out (and its stamp does not hash): the build outputs, the git
    folder and the GPU scratch folder at the top, Python's caches anywhere."""
    return (at_top and name in TOP_LEVEL_SKIPPED) or name == "__pycache__"


class UsageError(Exception):
    pass


def parse_results(text, keep=None):
    """The result lines of one benchmark output: (key, fraction of copy in %) in output order, and
    the copy bandwidth line's GB/s (None when absent). A key printed twice gets " #2" etc."""
    results = []
    seen = {}
    copy_gbs = None
    for line in text.splitlines():
        line = line.strip()
        m = COPY.match(line)
        if m:
            copy_gbs = float(m.group("gbs"))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        key = re.sub(r"\s+", " ", m.group("key"))
        if keep is not None and not keep.search(key):
            continue
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f"{key} #{seen[key]}"
        results.append((key, float(m.group("pct"))))
    return results, copy_gbs


def parse_variant(spec):
    name, sep, path = spec.partition("=")
    if not sep or not name or not path:
        raise UsageError(f"--variant needs NAME=PATH, got '{spec}'")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name == "tree":
        raise UsageError(f"--variant name '{name}' must be letters, digits, '_', '-', '.' and not 'tree'")
    if os.path.isdir(path):
        return name, "overlay", os.path.abspath(path)
    if os.path.isfile(path) and path.endswith((".diff", ".patch")):
        return name, "diff", os.path.abspath(path)
    raise UsageError(f"--variant {name}: '{path}' is neither a folder nor a .diff/.patch file")


def copy_tree(src, dst):
    """The source tree without its build outputs, its git folder and the GPU scratch folder."""
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True,
                    ignore=lambda d, names: [n for n in names if skipped(os.path.samefile(d, src), n)])


STAMP = ".ab_bench_variant"


def variant_stamp(root, kind, path):
    """What a copy was made from: the contents of the tree's files that copy_tree copies and of the
    variant's, hashed, so --reuse never runs a copy that no longer matches them."""
    h = hashlib.sha256()
    for base, rel_root in ((root, ""), (path, "variant/")):
        if os.path.isfile(base):
            with open(base, "rb") as f:
                h.update(rel_root.encode() + f.read())
            continue
        for d, dirs, files in os.walk(base):
            rel = os.path.relpath(d, base)
            dirs[:] = sorted(x for x in dirs if not skipped(rel == ".", x))
            for name in sorted(files):
                full = os.path.join(d, name)
                if os.path.isfile(full) and not os.path.islink(full):
                    with open(full, "rb") as f:
                        h.update((rel_root + os.path.join(rel, name)).encode() + b"\0" + f.read())
    return f"{kind} {h.hexdigest()}"


def read_stamp(dst):
    try:
        with open(os.path.join(dst, STAMP)) as f:
            return f.read().strip()
    except OSError:
        return None


def write_stamp(dst, stamp):
    with open(os.path.join(dst, STAMP), "w") as f:
        f.write(stamp + "\n")


def diff_commands(path, tool):
    """The commands that apply a unified diff in the current folder, all-or-nothing: `git apply`
    (which works outside a repository and refuses a diff that does not apply whole), or where git
    is missing `patch`, first as a dry run so that a failing diff leaves nothing behind."""
    if tool == "git":
        return [["git", "apply", "-p1", path]]
    return [["patch", "-p1", "--forward", "--batch", "--dry-run", "-i", path],
            ["patch", "-p1", "--forward", "--batch", "--quiet", "-i", path]]


def apply_variant(kind, path, dst, tool=None):
    if kind == "overlay":
        shutil.copytree(path, dst, dirs_exist_ok=True, symlinks=True)
        return None
    tool = tool or ("git" if shutil.which("git") else "patch")
    for cmd in diff_commands(path, tool):
        try:
            r = subprocess.run(cmd, cwd=dst, capture_output=True, text=True)
        except OSError as e:
            return f"cannot run {cmd[0]} to apply the diff: {e.strerror}"
        if r.returncode != 0:
            return f"the diff does not apply ({cmd[0]}): {(r.stderr or r.stdout).strip()}"
    return None


def build(root, preset, target, jobs, build_command, log):
    env = dict(os.environ, MXV_AB_TARGET=target)
    cmd = build_command or f"cmake --preset {preset} >/dev/null && cmake --build --preset {preset} --target {target} -j {jobs}"
    r = subprocess.run(cmd, shell=True, cwd=root, capture_output=True, text=True, env=env)
    log(f"## build {root}: {cmd} -> {r.returncode}\n{r.stdout[-4000:]}{r.stderr[-4000:]}")
    return None if r.returncode == 0 else f"build failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-600:]}"


def bench_path(root, build_dir, bench):
    direct = os.path.join(root, build_dir, bench)
    if os.path.isfile(direct):
        return direct
    for sub in ("device", "tools", "reference"):
        p = os.path.join(root, build_dir, sub, bench)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def table(order, rounds_results, copies):
    """The report: one row per result line, per variant its fractions in round order and their
    median; the copy bandwidth each variant's runs measured."""
    keys = []
    for name in order:
        for per_round in rounds_results[name]:
            for key, _ in per_round:
                if key not in keys:
                    keys.append(key)
    out = []
    width = max([len(k) for k in keys] + [10])
    out.append(f"{'result (% of copy)':<{width}}  " + "  ".join(f"{n:<24}" for n in order))
    for key in keys:
        cells = []
        for name in order:
            vals = [dict(r).get(key) for r in rounds_results[name]]
            vals = [v for v in vals if v is not None]
            cells.append("-" if not vals else f"{statistics.median(vals):.1f} ({', '.join(f'{v:.1f}' for v in vals)})")
        out.append(f"{key:<{width}}  " + "  ".join(f"{c:<24}" for c in cells))
    copy_cells = []
    for name in order:
        c = [x for x in copies[name] if x is not None]
        copy_cells.append(f"{', '.join(f'{x:.0f}' for x in c)} GB/s" if c else "-")
    out.append(f"{'copy (each run)':<{width}}  " + "  ".join(f"{c:<24}" for c in copy_cells))
    return "\n".join(out)


def main(argv):
    p = argparse.ArgumentParser(prog="ab_bench.py", usage="%(prog)s [options] -- BENCH [ARG...]", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", action="append", default=[], metavar="NAME=PATH")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--keep", metavar="REGEX")
    p.add_argument("--preset", default="gpu")
    p.add_argument("--build-dir", metavar="DIR", help="the preset's build folder (default build/PRESET)")
    p.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    p.add_argument("--workdir", default="/tmp/mxv-ab", help="where the variants' copies are built")
    p.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    p.add_argument("--log", metavar="FILE", help="every build's and run's whole output")
    p.add_argument("--no-build", action="store_true", help="the tree's build is current; variants are still built")
    p.add_argument("--build-command", metavar="CMD")
    p.add_argument("--build-only", action="store_true", help="build the copies and stop (no runs)")
    p.add_argument("--reuse", action="store_true",
                   help="keep a variant's copy (and its build) when the tree and the variant are unchanged since it was made")
    p.add_argument("bench", nargs=argparse.REMAINDER)
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        bench_argv = a.bench[1:] if a.bench[:1] == ["--"] else a.bench
        if not bench_argv:
            raise UsageError("no benchmark given (after --)")
        if not 1 <= a.rounds <= 50:
            raise UsageError(f"--rounds must be in [1, 50], got {a.rounds}")
        keep = re.compile(a.keep) if a.keep else None
        variants = [parse_variant(v) for v in a.variant]
        if len({v[0] for v in variants}) != len(variants):
            raise UsageError("two variants share a name")
    except (UsageError, re.error) as e:
        print(f"ab_bench.py: {e}", file=sys.stderr)
        return 2

    root = os.path.abspath(a.root)
    build_dir = a.build_dir or os.path.join("build", a.preset)
    bench, bench_args = bench_argv[0], bench_argv[1:]
    log_lock = threading.Lock()
    log_file = open(a.log, "w") if a.log else None

    def log(text):
        if log_file:
            with log_lock:
                log_file.write(text.rstrip("\n") + "\n")
                log_file.flush()

    roots = {"tree": root}
    failures = {}
    os.makedirs(a.workdir, exist_ok=True)
    for name, kind, path in variants:
        dst = os.path.join(os.path.abspath(a.workdir), name)
        roots[name] = dst
        stamp = variant_stamp(root, kind, path)
        if a.reuse and read_stamp(dst) == stamp:
            log(f"## {name}: reusing {dst} (same tree and variant)")
            continue
        copy_tree(root, dst)
        why = apply_variant(kind, path, dst)
        if why:
            failures[name] = why
        else:
            write_stamp(dst, stamp)
    order = ["tree"] + [v[0] for v in variants]
    to_build = [n for n in order if n not in failures and not (n == "tree" and a.no_build)]
    jobs = max(1, a.jobs // max(1, len(to_build)))
    threads = []
    for name in to_build:
        def work(n=name):
            why = build(roots[n], a.preset, os.path.basename(bench), jobs, a.build_command, log)
            if why:
                failures[n] = why
        t = threading.Thread(target=work)
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    for name in order:
        if name not in failures and bench_path(roots[name], build_dir, bench) is None:
            failures[name] = f"no benchmark '{bench}' under {os.path.join(roots[name], build_dir)}"
    for name, why in failures.items():
        print(f"ab_bench.py: {name}: {why}", file=sys.stderr)
    if a.build_only:
        print(f"built: {', '.join(n for n in order if n not in failures) or 'none'}")
        if log_file:
            log_file.close()
        return 1 if failures else 0

    running = [n for n in order if n not in failures]
    results = {n: [] for n in running}
    copies = {n: [] for n in running}
    print(f"{a.rounds} rounds of `{' '.join(bench_argv)}`, variants in turn: {', '.join(running)}", flush=True)
    for r in range(1, a.rounds + 1):
        for name in running:
            exe = bench_path(roots[name], build_dir, bench)
            try:
                proc = subprocess.run([exe] + bench_args, cwd=roots[name], capture_output=True, text=True)
            except OSError as e:  # not a program this machine runs
                proc = subprocess.CompletedProcess([exe], 126, "", f"cannot run {exe}: {e.strerror}")
            log(f"## round {r} {name}: {exe} {' '.join(bench_args)} -> {proc.returncode}\n{proc.stdout}{proc.stderr}")
            found, copy_gbs = parse_results(proc.stdout, keep)
            results[name].append(found)
            copies[name].append(copy_gbs)
            if proc.returncode != 0:
                failures[f"{name} round {r}"] = f"exit status {proc.returncode}"
                print(f"ab_bench.py: {name}, round {r}: the benchmark exited with {proc.returncode}: "
                      f"{proc.stderr.strip()[-300:]}", file=sys.stderr)
            print(f"round {r} {name}: {len(found)} results", flush=True)
    if running:
        print(table(running, results, copies))
    if log_file:
        log_file.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
