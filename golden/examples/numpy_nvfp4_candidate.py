#!/usr/bin/env python3
"""Fill an mxv candidate file with a plain numpy NVFP4 quantizer, as kernel authors often write one.

    mxv golden template --case quantize.nvfp4_te.7x400.linear.fp32 \
        --case quantize.nvfp4_te.256x32.swizzled.bf16 -o candidate.h5
    python3 numpy_nvfp4_candidate.py candidate.h5
    mxv golden check --candidate candidate.h5

The quantizer below keeps the mistakes such references usually make, on purpose, so that the
report has something to explain (docs/golden-files.md; the classes are the check library's):
  1. E2M1 rounding by argmin over the code table: a tie goes to the first (smaller) value, not to
     the even code                                                   -> tie-flip
  2. the sign taken with np.sign(), which is 0 for -0.0                -> sign-of-zero
  3. NaN inputs: argmin over a NaN row returns index 0 (+0)            -> nan-policy
  4. a block whose UE4M3 scale rounds to zero (tiny or subnormal values) is divided by zero and
     its elements saturate to +-6; the reference's multiplier is FLT_MAX there, which keeps tiny
     values at +-0                                                     -> other
Everything else (tensor and block amax, the UE4M3 scale, nibble packing, the 128x4 swizzle) is
done right.
"""
import sys

import h5py
import numpy as np

E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=np.float32)


def e4m3_values():
    """Every finite non-negative E4M3 value (bias 7; 0x7F is NaN), in code order."""
    vals = []
    for code in range(0x7F):
        e, m = code >> 3, code & 7
        vals.append(m / 8 * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    return np.array(vals, dtype=np.float32)


E4M3 = e4m3_values()


def to_e4m3_code(v):
    """Nearest E4M3 code of a positive fp32 value (saturating at 448)."""
    v = np.minimum(v, np.float32(448.0))
    return np.argmin(np.abs(E4M3[None, :] - v[:, None]), axis=1).astype(np.uint8)


def read_wide(ds, dtype):
    a = ds[...]
    if dtype == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float32)


def swizzle_offsets(rows, kb):
    """Byte offset of scale (r, k) in cuBLAS's 128x4 tiles (docs/semantics.md section 5.3)."""
    n_k = (kb + 3) // 4
    r = np.arange(rows)[:, None]
    k = np.arange(kb)[None, :]
    return (r // 128) * n_k * 512 + (k // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + k % 4


def quantize_nvfp4(x, tensor_amax):
    rows, cols = x.shape
    assert cols % 16 == 0, "this quantizer takes whole 16-element blocks"
    amax = np.float32(np.nanmax(np.abs(x))) if tensor_amax is None else np.float32(tensor_amax)
    s_enc = np.float32(448.0 * 6.0) / amax
    s_dec = np.float32(1.0) / s_enc
    blocks = x.reshape(rows, cols // 16, 16)
    block_amax = np.nanmax(np.abs(blocks), axis=2)
    sf_code = to_e4m3_code((block_amax * (s_enc * np.float32(1.0 / 6.0))).reshape(-1)).reshape(rows, -1)
    sf = E4M3[sf_code]
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = blocks / (sf * s_dec)[:, :, None]                      # mistake 4 when sf == 0
    scaled = np.nan_to_num(scaled, nan=np.nan, posinf=6.0, neginf=-6.0)
    mag = np.minimum(np.abs(scaled), 6.0).reshape(-1)
    idx = np.argmin(np.abs(E2M1[None, :] - mag[:, None]), axis=1)   # mistakes 1 and 3
    sign = (np.sign(scaled.reshape(-1)) < 0).astype(np.uint8) << 3  # mistake 2
    codes = (idx.astype(np.uint8) | sign).reshape(rows, cols)
    packed = codes[:, 0::2] | (codes[:, 1::2] << 4)
    return packed, sf_code, amax, s_dec


def main(path):
    with h5py.File(path, "r+") as f:
        for name, case in f["cases"].items():
            op = case.attrs["op"].decode()
            recipe = case.attrs["recipe.name"].decode() if "recipe.name" in case.attrs else ""
            if op != "quantize" or recipe != "nvfp4_te" or len(case.attrs["groups"]) > 0:
                print(f"{name}: skipped (this example quantizes ungrouped nvfp4_te only)")
                continue
            x = read_wide(case["inputs/x"], case.attrs["dtype"].decode())
            amax_attr = case.attrs.get("tensor_amax")
            packed, sf_code, amax, s_dec = quantize_nvfp4(x, amax_attr)
            out = case["outputs"]
            out["elements"][...] = packed
            if case.attrs["scale_layout"].decode() == "linear":
                out["scales"][...] = sf_code
            else:
                scales = np.zeros(out["scales"].shape, dtype=np.uint8)
                scales[swizzle_offsets(*sf_code.shape)] = sf_code
                out["scales"][...] = scales
            out["amax"][...] = np.array([amax], dtype=np.float32)
            out["s_dec"][...] = np.array([s_dec], dtype=np.float32)
            print(f"{name}: filled")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: numpy_nvfp4_candidate.py CANDIDATE.h5")
    main(sys.argv[1])
