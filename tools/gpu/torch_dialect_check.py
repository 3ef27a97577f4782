#!/usr/bin/env python3
"""Checks mxv's torch dialects (reference/include/mxv/reference/dialect_rules.h) against torch
itself over all 2^32 fp32 bit patterns, chunk by chunk, on the GPU machine (torch 2.11 there).
The dialect compared is `torch@2.11` for torch 2.11 and earlier and `torch` (torch 2.15) for later
releases (2.12 - 2.14 were not measured); --dialect overrides it.

For each chunk k (fp32 patterns [k*2^24, (k+1)*2^24)) it converts with torch
`.to(torch.float8_e4m3fn / torch.float8_e8m0fnu)` on the CPU and, with --device cuda, on the GPU,
hashes the codes with SHA-256 and compares with the line `k <sha256>` printed by
  mxv convert --format F --dialect D --sweep fp32 --digest --chunks LO:HI
On a mismatching chunk it converts that chunk with `mxv convert --input/--output` and prints the
first differing inputs with torch's and mxv's codes. Exit status 0 only when every chunk agrees.

  python3 tools/gpu/torch_dialect_check.py --mxv build/gpu/tools/mxv [--device cpu|cuda|both]
      [--formats e4m3,e8m0] [--chunks 0:256] [--dialect torch|torch@2.11]
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

CHUNK = 1 << 24
DTYPES = {"e4m3": torch.float8_e4m3fn, "e8m0": torch.float8_e8m0fnu}


def patterns(k):
    return np.arange(k * CHUNK, (k + 1) * CHUNK, dtype=np.uint64).astype(np.uint32)


def torch_codes(k, fmt, device):
    x = torch.from_numpy(patterns(k).view(np.float32))
    if device != "cpu":
        x = x.to(device)
    return x.to(DTYPES[fmt]).view(torch.uint8).cpu().numpy()


def default_dialect():
    major, minor = (int(v) for v in torch.__version__.split("+")[0].split(".")[:2])
    return "torch@2.11" if (major, minor) <= (2, 11) else "torch"


def mxv_digests(mxv, fmt, lo, hi, dialect):
    out = subprocess.run(
        [mxv, "convert", "--format", fmt, "--dialect", dialect, "--sweep", "fp32", "--digest",
         "--chunks", f"{lo}:{hi}"], check=True, capture_output=True, text=True).stdout
    digests = {}
    for line in out.splitlines():
        k, h = line.split()
        digests[int(k)] = h
    return digests


def explain(mxv, fmt, k, codes, dialect):
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.f32"), os.path.join(d, "out.codes")
        patterns(k).tofile(src)
        subprocess.run([mxv, "convert", "--format", fmt, "--dialect", dialect, "-i", src,
                        "-o", dst], check=True)
        ours = np.fromfile(dst, dtype=np.uint8)
    bad = np.nonzero(ours != codes)[0]
    print(f"    {len(bad)} differing inputs in chunk {k}; first:")
    for i in bad[:8]:
        bits = k * CHUNK + int(i)
        value = np.array([bits], dtype=np.uint32).view(np.float32)[0]
        print(f"      fp32 0x{bits:08X} ({value:.9g}): torch 0x{codes[i]:02X}, "
              f"mxv 0x{ours[i]:02X}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mxv", required=True, help="path to the built mxv program")
    ap.add_argument("--device", default="both", choices=["cpu", "cuda", "both"])
    ap.add_argument("--formats", default="e4m3,e8m0")
    ap.add_argument("--chunks", default="0:256")
    ap.add_argument("--dialect", default=default_dialect(), choices=["torch", "torch@2.11"])
    args = ap.parse_args()
    lo, hi = (int(v) for v in args.chunks.split(":"))
    devices = ["cpu", "cuda"] if args.device == "both" else [args.device]
    if "cuda" in devices and not torch.cuda.is_available():
        print("torch reports no CUDA device: checking the CPU conversion only")
        devices = ["cpu"]
    print(f"torch {torch.__version__}, mxv dialect {args.dialect}, devices {devices}, chunks {lo}:{hi}")
    failures = 0
    for fmt in args.formats.split(","):
        expected = mxv_digests(args.mxv, fmt, lo, hi, args.dialect)
        for device in devices:
            bad_chunks = 0
            for k in range(lo, hi):
                codes = torch_codes(k, fmt, device)
                if hashlib.sha256(codes.tobytes()).hexdigest() != expected[k]:
                    bad_chunks += 1
                    if bad_chunks <= 3:
                        print(f"  {fmt} {device}: chunk {k} differs")
                        explain(args.mxv, fmt, k, codes, args.dialect)
            print(f"{fmt} on {device}: {hi - lo - bad_chunks}/{hi - lo} chunks equal")
            failures += bad_chunks
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
