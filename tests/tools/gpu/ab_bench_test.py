#!/usr/bin/env python3
"""Tests of tools/gpu/ab_bench.py without a GPU: the parser on the benchmarks' real line formats, and
whole runs on a scratch tree whose "benchmark" is a shell script printing the fraction a file of
its tree holds, so each variant's figure is known in advance. Plain Python 3 (unittest)."""
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

import tool_module

TOOL = tool_module.path("ab_bench")
ab_bench = tool_module.load("ab_bench")

# Lines as device/bench/quantize_bench.cu and dequantize_bench.cu print them.
QUANTIZE_OUT = textwrap.dedent("""\
    copy 1 GiB (D2D memcpy): 0.504 ms -> 4260.1 GB/s (read + write)
    quantize_vector nvfp4_te bf16 16384x7168                 0.096 ms    3749.2 GB/s   88.0% of copy
    fused bf16 silu interleaved:8                             0.087 ms    3335.9 GB/s   78.3% of copy
    fused bf16 silu interleaved:8                             0.085 ms    3412.0 GB/s   80.1% of copy
      fused speed-up over the unfused pair: 3.01x
    """)
DEQUANTIZE_OUT = textwrap.dedent("""\
    4 rotating input sets

    recipe         packing  out   kernel    shape                      ms         GB/s  of copy
    nvfp4_te       kpacked  bf16  tiled     8x2048x4096             0.045       3618    85.0%
    convert    from          ms       GB/s  of copy
    e4m3       fp32       0.310       4321   102.6%
    """)

FAKE_BENCH = textwrap.dedent("""\
    #!/bin/sh
    # prints the fraction in frac.txt of the tree it runs in; exits with code.txt's number if present
    echo "copy 1 GiB (D2D memcpy): 0.500 ms -> 4000.0 GB/s (read + write)"
    echo "fused bf16 silu interleaved:8        0.100 ms   1000.0 GB/s   $(cat frac.txt)% of copy"
    echo "noise line 12.5%"
    [ -f code.txt ] && exit "$(cat code.txt)"
    exit 0
    """)
BUILD = "mkdir -p build/fake/device && cp fake_bench.sh build/fake/device/$MXV_AB_TARGET && chmod +x build/fake/device/$MXV_AB_TARGET"


class ParseTest(unittest.TestCase):
    def test_quantize_bench_lines(self):
        results, copy = ab_bench.parse_results(QUANTIZE_OUT)
        self.assertEqual(copy, 4260.1)
        self.assertEqual(results, [("quantize_vector nvfp4_te bf16 16384x7168", 88.0),
                                   ("fused bf16 silu interleaved:8", 78.3),
                                   ("fused bf16 silu interleaved:8 #2", 80.1)])

    def test_dequantize_bench_rows(self):
        results, copy = ab_bench.parse_results(DEQUANTIZE_OUT)
        self.assertIsNone(copy)
        self.assertEqual(results, [("nvfp4_te kpacked bf16 tiled 8x2048x4096", 85.0), ("e4m3 fp32", 102.6)])

    def test_keep_filters_keys(self):
        import re
        results, _ = ab_bench.parse_results(QUANTIZE_OUT, re.compile("fused"))
        self.assertEqual([k for k, _ in results], ["fused bf16 silu interleaved:8", "fused bf16 silu interleaved:8 #2"])

    def test_table_medians(self):
        rounds = {"tree": [[("k", 78.0)], [("k", 79.0)], [("k", 78.5)]], "v": [[("k", 80.0)], [], [("k", 81.0)]]}
        text = ab_bench.table(["tree", "v"], rounds, {"tree": [4000.0] * 3, "v": [None] * 3})
        self.assertIn("78.5 (78.0, 79.0, 78.5)", text)
        self.assertIn("80.5 (80.0, 81.0)", text)  # a round without the line does not count as 0
        self.assertIn("4000, 4000, 4000 GB/s", text)


class RunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tree = os.path.join(self.dir.name, "tree")
        os.makedirs(os.path.join(self.tree, "build", "stale"))
        os.makedirs(os.path.join(self.tree, ".git"))
        os.makedirs(os.path.join(self.tree, ".gpu"))
        self.write(self.tree, "frac.txt", "78.0\n")
        self.write(self.tree, "fake_bench.sh", FAKE_BENCH)
        self.write(self.tree, "src/kernel.h", "int x = 1;\n")

    def tearDown(self):
        self.dir.cleanup()

    @staticmethod
    def write(root, rel, text):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_tool(self, *args):
        out, err = io.StringIO(), io.StringIO()
        argv = ["--root", self.tree, "--workdir", os.path.join(self.dir.name, "work"), "--preset", "fake",
                "--build-command", BUILD, "--rounds", "2", *args, "--", "fake_bench", "--reps", "3"]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = ab_bench.main(argv)
        return code, out.getvalue(), err.getvalue()

    def test_overlay_and_diff_variants_each_show_their_figure(self):
        overlay = os.path.join(self.dir.name, "overlay")
        self.write(overlay, "frac.txt", "80.5\n")
        diff = self.write(self.dir.name, "v.diff", textwrap.dedent("""\
            --- a/frac.txt
            +++ b/frac.txt
            @@ -1 +1 @@
            -78.0
            +79.2
            """))
        code, out, err = self.run_tool("--variant", f"over={overlay}", "--variant", f"patched={diff}")
        self.assertEqual(code, 0, err)
        row = next(l for l in out.splitlines() if l.startswith("fused bf16 silu interleaved:8"))
        self.assertIn("78.0 (78.0, 78.0)", row)
        self.assertIn("80.5 (80.5, 80.5)", row)
        self.assertIn("79.2 (79.2, 79.2)", row)
        self.assertLess(row.index("78.0"), row.index("80.5"))  # columns in the order given: tree first
        self.assertNotIn("noise", out)  # a percentage without the timing columns is not a result
        work = os.path.join(self.dir.name, "work", "over")
        self.assertTrue(os.path.isfile(os.path.join(work, "src", "kernel.h")))
        for skipped in (".git", ".gpu", os.path.join("build", "stale")):
            self.assertFalse(os.path.exists(os.path.join(work, skipped)), skipped)
        with open(os.path.join(self.tree, "frac.txt")) as f:
            self.assertEqual(f.read(), "78.0\n")  # the tree itself is never changed

    def test_a_diff_that_does_not_apply_fails_the_call(self):
        diff = self.write(self.dir.name, "bad.diff", "--- a/frac.txt\n+++ b/frac.txt\n@@ -1 +1 @@\n-99.0\n+1.0\n")
        code, out, err = self.run_tool("--variant", f"bad={diff}")
        self.assertEqual(code, 1)
        self.assertIn("bad: the diff does not apply", err)
        self.assertIn("78.0 (78.0, 78.0)", out)  # the tree still ran
        self.assertNotIn("bad", out.splitlines()[-1])

    def test_diffs_apply_whole_or_not_at_all_with_git_or_patch(self):
        good = self.write(self.dir.name, "good.diff", "--- a/frac.txt\n+++ b/frac.txt\n@@ -1 +1 @@\n-78.0\n+79.0\n")
        # the second file's hunk does not apply: nothing of the diff may land
        bad = self.write(self.dir.name, "bad.diff", "--- a/frac.txt\n+++ b/frac.txt\n@@ -1 +1 @@\n-78.0\n+79.0\n"
                                                     "--- a/src/kernel.h\n+++ b/src/kernel.h\n@@ -1 +1 @@\n-int x = 9;\n+int x = 3;\n")
        tools = [t for t in ("git", "patch") if shutil.which(t)]  # each one this machine has
        self.assertIn("git", tools)
        for tool in tools:
            copy = os.path.join(self.dir.name, "copy_" + tool)
            ab_bench.copy_tree(self.tree, copy)
            self.assertIsNone(ab_bench.apply_variant("diff", good, copy, tool))
            with open(os.path.join(copy, "frac.txt")) as f:
                self.assertEqual(f.read(), "79.0\n", tool)
            ab_bench.copy_tree(self.tree, copy)
            why = ab_bench.apply_variant("diff", bad, copy, tool)
            self.assertIn("the diff does not apply", why or "", tool)
            with open(os.path.join(copy, "frac.txt")) as f:
                self.assertEqual(f.read(), "78.0\n", tool)  # the first hunk did not land either

    def test_a_failing_build_or_benchmark_fails_the_call(self):
        broken = os.path.join(self.dir.name, "broken")
        self.write(broken, "fake_bench.sh", "#!/bin/sh\nexit 3\n")  # the build makes it the benchmark
        unrunnable = os.path.join(self.dir.name, "unrunnable")
        self.write(unrunnable, "fake_bench.sh", "exit 3\n")  # no #! line: the kernel refuses to run it
        code, out, err = self.run_tool("--variant", f"broken={broken}", "--variant", f"unrunnable={unrunnable}")
        self.assertEqual(code, 1)
        self.assertIn("broken, round 1: the benchmark exited with 3", err)
        self.assertIn("unrunnable, round 1: the benchmark exited with 126: cannot run", err)
        self.assertIn("78.0 (78.0, 78.0)", out)
        crash = os.path.join(self.dir.name, "crash")
        self.write(crash, "code.txt", "139\n")
        code, _, err = self.run_tool("--variant", f"crash={crash}", "--build-command", "exit 7")
        self.assertEqual(code, 1)
        self.assertIn("build failed (7)", err)

    def test_build_only_then_reuse_keeps_a_copy_until_tree_or_variant_change(self):
        overlay = os.path.join(self.dir.name, "overlay")
        self.write(overlay, "frac.txt", "80.5\n")
        code, out, err = self.run_tool("--variant", f"over={overlay}", "--build-only")
        self.assertEqual(code, 0, err)
        self.assertIn("built: tree, over", out)
        self.assertNotIn("round 1", out)  # nothing ran
        copy = os.path.join(self.dir.name, "work", "over")
        sentinel = self.write(copy, "sentinel.txt", "kept\n")
        code, out, err = self.run_tool("--variant", f"over={overlay}", "--reuse")
        self.assertEqual(code, 0, err)
        self.assertTrue(os.path.exists(sentinel))  # same tree, same variant: the copy stays
        self.assertIn("80.5 (80.5, 80.5)", out)
        self.write(overlay, "frac.txt", "81.0\n")  # the variant changed: a fresh copy
        code, out, _ = self.run_tool("--variant", f"over={overlay}", "--reuse")
        self.assertFalse(os.path.exists(sentinel))
        self.assertIn("81.0 (81.0, 81.0)", out)
        self.write(copy, "sentinel.txt", "kept\n")
        self.write(self.tree, "src/kernel.h", "int x = 2;\n")  # the tree changed: a fresh copy
        self.run_tool("--variant", f"over={overlay}", "--reuse")
        self.assertFalse(os.path.exists(sentinel))

    def test_usage_errors(self):
        self.assertEqual(self.run_tool("--variant", "novalue")[0], 2)
        self.assertEqual(self.run_tool("--variant", "tree=" + self.tree)[0], 2)
        self.assertEqual(self.run_tool("--variant", "x=" + os.path.join(self.dir.name, "missing"))[0], 2)
        self.assertEqual(self.run_tool("--rounds", "0")[0], 2)
        self.assertEqual(self.run_tool("--keep", "(")[0], 2)
        code, _, err = self.run_tool("--variant", f"a={self.tree}", "--variant", f"a={self.tree}")
        self.assertEqual(code, 2)
        self.assertIn("share a name", err)

    def test_command_line_entry(self):
        r = subprocess.run([sys.executable, TOOL, "--rounds", "1"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no benchmark given", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
