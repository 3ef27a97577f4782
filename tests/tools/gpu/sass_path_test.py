#!/usr/bin/env python3
"""Tests of tools/gpu/sass_path.py on SASS text in cuobjdump's format (no cuobjdump needed): the
walk follows the branches it is told to take, counts what a thread issues (predicated-off
instructions too), closes a loop at its start, does not follow a BRA.U.ANY retry, and fails
instead of counting on when the path never ends. Plain Python 3 (unittest)."""
import contextlib
import io
import os
import tempfile
import textwrap
import unittest

import tool_module

sass_path = tool_module.load("sass_path")

# Two functions; the kernel's loop head is 0x0030, its back edge 0x00c0. A thread that takes the
# branch at 0x0060 skips 0x0070 and 0x0080.
SASS = textwrap.dedent("""\
    \tcode for sm_90
    \t\tFunction : _Z5otherv
            /*0000*/                   EXIT ;                                  /* 0x000000000000794d */
    \t\tFunction : _Z6kernelPf
            /*0000*/                   S2R R0, SR_TID.X ;                      /* 0x0000000000007919 */
            /*0010*/              @P0 ELECT P1, URZ, PT ;                      /* 0x0000000000000000 */
            /*0020*/              @P0 BRA.U.ANY 0x10 ;                         /* 0x0000000000000000 */
            /*0030*/                   LDG.E R2, desc[UR4][R4.64] ;            /* 0x0000000000000000 */
            /*0040*/                   FMUL R2, R2, R3 ;                       /* 0x0000000000000000 */
            /*0050*/                   ISETP.GE.AND P1, PT, R2, RZ, PT ;       /* 0x0000000000000000 */
            /*0060*/              @!P1 BRA 0x90 ;                              /* 0x0000000000000000 */
            /*0070*/                   FADD R2, R2, 1 ;                        /* 0x0000000000000000 */
            /*0080*/              @P2 FADD R2, R2, 2 ;                         /* 0x0000000000000000 */
            /*0090*/                   STG.E desc[UR4][R4.64], R2 ;            /* 0x0000000000000000 */
            /*00a0*/                   IADD3 R4, P0, R4, 0x4, RZ ;             /* 0x0000000000000000 */
            /*00b0*/                   ISETP.NE.AND P3, PT, R4, R6, PT ;       /* 0x0000000000000000 */
            /*00c0*/              @P3 BRA 0x30 ;                               /* 0x0000000000000000 */
            /*00d0*/                   EXIT ;                                  /* 0x000000000000794d */
            /*00e0*/                   BRA 0xe0;                               /* 0x0000000000000000 */
    """)


class WalkTest(unittest.TestCase):
    def setUp(self):
        self.ins = sass_path.functions(SASS)["_Z6kernelPf"]

    def test_one_loop_trip_falls_through_untaken_branches(self):
        path, branches, ended = sass_path.walk(self.ins, 0x30)
        self.assertTrue(ended)
        self.assertEqual([a for a, _ in path], [0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xA0, 0xB0, 0xC0])
        self.assertEqual([(a, taken) for a, _, taken in branches], [(0x60, False), (0xC0, True)])

    def test_a_taken_branch_skips_its_instructions(self):
        path, _, ended = sass_path.walk(self.ins, 0x30, take={0x60})
        self.assertTrue(ended)
        self.assertEqual(len(path), 8)  # 0x70 and 0x80 skipped; the predicated FADD counted when walked
        self.assertNotIn(0x70, [a for a, _ in path])

    def test_a_retry_loop_is_not_followed_and_a_stop_ends_the_walk(self):
        path, _, ended = sass_path.walk(self.ins, 0x0, stop=0x40)
        self.assertTrue(ended)
        self.assertEqual([a for a, _ in path], [0x0, 0x10, 0x20, 0x30])

    def test_a_path_that_never_ends_is_reported(self):
        path, _, ended = sass_path.walk(self.ins, 0xE0, stop=0x40, limit=50)  # a BRA to itself, forever
        self.assertFalse(ended)
        self.assertEqual(len(path), 50)
        path, _, ended = sass_path.walk(self.ins, 0x90, stop=0x40)  # the back edge falls through to EXIT
        self.assertFalse(ended)
        self.assertEqual(path[-1], (0xD0, "EXIT"))

    def test_backward_branches_name_the_loops(self):
        self.assertEqual([a for a, _ in sass_path.backward_branches(self.ins)], [0x20, 0xC0, 0xE0])


class CommandTest(unittest.TestCase):
    def run_tool(self, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".sass", delete=False) as f:
            f.write(SASS)
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = sass_path.main([f.name, *args])
        finally:
            os.unlink(f.name)
        return code, out.getvalue(), err.getvalue()

    def test_counts_and_opcodes(self):
        code, out, _ = self.run_tool("kernel", "30", "--take", "60")
        self.assertEqual(code, 0)
        self.assertIn("8 instructions", out)
        self.assertIn("branch 00060 taken", out)
        self.assertIn("ISETP 2", out)

    def test_errors(self):
        code, _, err = self.run_tool("Z", "30")  # names both functions
        self.assertEqual(code, 2)
        self.assertIn("names 2 functions", err)
        self.assertEqual(self.run_tool("kernel", "34")[0], 2)  # no instruction there
        self.assertEqual(self.run_tool("kernel", "90", "--stop", "40")[0], 1)  # reaches EXIT


if __name__ == "__main__":
    unittest.main(verbosity=2)
