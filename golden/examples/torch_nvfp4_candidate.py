#!/usr/bin/env python3
"""Fill an mxv candidate file with NVFP4 and MXFP4 quantizers written in torch, using torch's own
float8_e4m3fn and float8_e8m0fnu conversions for the block scales (on the GPU when there is one).

    mxv golden template --case 'quantize.nvfp4_te.7x400.linear.fp32' \
        --case 'quantize.nvfp4_te.256x32.swizzled.bf16' \
        --case 'quantize.mxfp4_nvidia.256x32.swizzled.bf16' -o candidate.h5
    python3 torch_nvfp4_candidate.py candidate.h5 [--device cuda]
    mxv golden check --candidate candidate.h5

Unlike numpy_nvfp4_candidate.py this one tries to be right: TransformerEngine's operation order
for nvfp4_te, E2M1 round-half-to-even, -0 and NaN as the cuda dialect has them, the round-up (RP)
E8M0 scale of mxfp4_nvidia (docs/semantics.md section 4.1). What remains to be learnt is what
torch's own conversions do on the device at hand: the UE4M3 scale goes through
`.to(torch.float8_e4m3fn)`, the E8M0 scale through `.to(torch.float8_e8m0fnu)`. Measured with torch 2.15 on the CPU: all three
cases pass (torch's E8M0 conversion rounds these block amaxes up, as RP does). Torch is not
installed in CI; run it where torch is, with --device cuda on a GPU.
"""
import argparse

import h5py
import numpy as np
import torch

E2M1 = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
# Midpoints between adjacent E2M1 values; a tie rounds to the even code (codes 0, 2, 4, 6).
MIDPOINTS = torch.tensor([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0])


def e2m1_codes(v):
    """E2M1 round-half-to-even of fp32 values, satfinite, NaN -> 0x7, sign kept (also for -0)."""
    mag = v.abs()
    idx = torch.bucketize(mag, MIDPOINTS.to(v.device), right=False)  # ties -> lower index
    tie = (mag.unsqueeze(-1) == MIDPOINTS.to(v.device)).any(-1)
    # At a tie bucketize (right=False) gives the lower code; the even one is lower when it is even.
    idx = torch.where(tie & (idx % 2 == 1), idx + 1, idx)
    idx = torch.where(torch.isnan(v), torch.full_like(idx, 7), idx)
    sign = torch.signbit(v) & ~torch.isnan(v)
    return (idx | (sign.to(idx.dtype) << 3)).to(torch.uint8)


def pack(codes):
    return (codes[:, 0::2] | (codes[:, 1::2] << 4)).to(torch.uint8)


def swizzle(sf, out_len):
    rows, kb = sf.shape
    n_k = (kb + 3) // 4
    r = torch.arange(rows).unsqueeze(1)
    k = torch.arange(kb).unsqueeze(0)
    off = (r // 128) * n_k * 512 + (k // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + k % 4
    out = torch.zeros(out_len, dtype=torch.uint8)
    out[off.reshape(-1)] = sf.reshape(-1).cpu()
    return out


def nvfp4_te(x, tensor_amax):
    rows, cols = x.shape
    amax = torch.nan_to_num(x.abs(), nan=0.0).max() if tensor_amax is None else torch.tensor(tensor_amax, device=x.device)
    s_enc = torch.clamp(2688.0 / amax, max=torch.finfo(torch.float32).max)
    if amax == 0 or s_enc == 0:
        s_enc = torch.tensor(1.0, device=x.device)
    s_dec = 1.0 / s_enc
    blocks = x.reshape(rows, cols // 16, 16)
    block_amax = torch.nan_to_num(blocks.abs(), nan=0.0).amax(-1)  # fmaxf ignores NaN
    sf = (block_amax * (s_enc * torch.tensor(1.0 / 6.0))).to(torch.float8_e4m3fn)
    enc = torch.clamp(1.0 / (sf.float() * s_dec), max=torch.finfo(torch.float32).max)
    codes = e2m1_codes((blocks * enc.unsqueeze(-1)).reshape(rows, cols))
    return pack(codes), sf.view(torch.uint8), amax.float(), s_dec.float()


def mxfp4_nvidia(x):
    rows, cols = x.shape
    blocks = x.reshape(rows, cols // 32, 32)
    block_amax = torch.nan_to_num(blocks.abs(), nan=0.0).amax(-1)
    scale = (block_amax * torch.tensor(1.0 / 6.0)).to(torch.float8_e8m0fnu)  # torch's own rounding
    codes = e2m1_codes((blocks / scale.float().unsqueeze(-1)).reshape(rows, cols))
    return pack(codes), scale.view(torch.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("candidate")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = ap.parse_args()
    with h5py.File(a.candidate, "r+") as f:
        for name, case in f["cases"].items():
            attrs = case.attrs
            recipe = attrs["recipe.name"].decode() if "recipe.name" in attrs else ""
            if attrs["op"].decode() != "quantize" or len(attrs["groups"]) or recipe not in ("nvfp4_te", "mxfp4_nvidia"):
                print(f"{name}: skipped")
                continue
            raw = case["inputs/x"][...]
            x = (raw.astype(np.uint32) << 16).view(np.float32) if attrs["dtype"].decode() == "bf16" else raw
            x = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)).to(a.device)
            out = case["outputs"]
            if recipe == "nvfp4_te":
                packed, sf, amax, s_dec = nvfp4_te(x, attrs.get("tensor_amax"))
                out["amax"][...] = np.array([amax.item()], dtype=np.float32)
                out["s_dec"][...] = np.array([s_dec.item()], dtype=np.float32)
            else:
                packed, sf = mxfp4_nvidia(x)
            out["elements"][...] = packed.cpu().numpy()
            if attrs["scale_layout"].decode() == "linear":
                out["scales"][...] = sf.cpu().numpy()
            else:
                out["scales"][...] = swizzle(sf, out["scales"].shape[0]).numpy()
            print(f"{name}: filled on {a.device}")


if __name__ == "__main__":
    main()
