#!/usr/bin/env python3
"""Captures torch's own float32 -> low-precision casts and ml_dtypes' astype on the same values,
as HDF5 files under golden/libraries/ (schema: capture_file.py; docs/conformance.md).

  python tools/conformance/capture_casts.py [--out DIR] [--device cpu|cuda]

torch (--device picks where the cast runs; on a GPU machine use --device cuda):
  x.to(torch.float8_e4m3fn), x.to(torch.float8_e8m0fnu), x.to(torch.float4_e2m1fn_x2) (the last
  is recorded as refused when torch has no elementwise cast to it)
ml_dtypes (CPU only, written with --device cpu when ml_dtypes is installed):
  x.astype(float8_e4m3fn), x.astype(float8_e8m0fnu), x.astype(float4_e2m1fn)

Each group's `convert` attribute names the mxv conversion claimed to reproduce it
(format:rounding:saturation:dialect, the names of mxv convert). mxv models two torch behaviour
ranges (reference/include/mxv/reference/dialect_rules.h): `torch@2.11` (E4M3 overflow -> NaN) and
`torch@2.15` (E4M3 overflow saturates). Which one this torch is, is read from its release: the
releases in TORCH_RELEASES were measured; for any other release the script says so and claims the
range whose E4M3 overflow rule this torch shows on 480.0, so the conformance test then holds every
captured value to that dialect (and fails if anything else differs).
Needs numpy and h5py, and torch or ml_dtypes (whichever is installed is captured; without torch
the ml_dtypes file records torch_version "none").
"""

import os
import sys

import numpy as np

try:
    import torch
except ImportError:  # ml_dtypes alone needs no torch: its capture is still written
    torch = None
try:
    import ml_dtypes
except ImportError:  # the GPU machine's torch environment may not have it
    ml_dtypes = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_file import CaptureFile, capture_path, parse_args  # noqa: E402

F32 = np.float32


def neighbours(values):
    """Each value, its fp32 neighbours and its negation."""
    out = []
    for v in values:
        v = F32(v)
        out += [v, np.nextafter(v, F32(np.inf)), np.nextafter(v, F32(-np.inf)), -v]
    return out


def e4m3_value(code):
    """The value of an E4M3 (float8_e4m3fn) magnitude code below 0x7F: bias 7, subnormals."""
    exponent, mantissa = code >> 3, code & 7
    if exponent == 0:
        return mantissa / 8 * 2.0 ** -6
    return (1 + mantissa / 8) * 2.0 ** (exponent - 7)


def cast_inputs():
    """Every code's value and every midpoint between neighbouring codes (+- 1 ulp), for E4M3,
    E8M0 and E2M1, plus overflow, subnormal, zero and non-finite values."""
    values = []
    e4m3 = np.array([e4m3_value(c) for c in range(0x7F)], dtype=np.float64)
    values += list(e4m3) + list((e4m3[1:] + e4m3[:-1]) / 2)
    e2m1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], dtype=np.float64)
    values += list(e2m1) + list((e2m1[1:] + e2m1[:-1]) / 2)
    for e in range(-127, 128, 3):
        values += [2.0 ** e, 1.5 * 2.0 ** e, 1.25 * 2.0 ** e, 1.75 * 2.0 ** e]
    values += [448, 464, 480, 500, 1e6, 6.5, 7, 3.4e38, 1e-40, 1e-45, 2.0 ** -127, 2.0 ** -128, 1.4e-45]
    flat = neighbours(values) + [F32(np.inf), F32(-np.inf), F32(np.nan), F32(-0.0),
                                 np.array([0xFFC00000], dtype=np.uint32).view(F32)[0]]
    flat = np.array(flat, dtype=F32)
    pad = (-flat.size) % 64
    return np.concatenate([flat, np.zeros(pad, dtype=F32)]).reshape(-1, 64)


# Measured torch releases and the mxv dialect that reproduces their casts on every device captured
# (docs/conformance.md, "The table").
TORCH_RELEASES = {"2.11": "torch@2.11", "2.15": "torch@2.15"}


def torch_dialect(device):
    """The mxv dialect claimed for this torch: from TORCH_RELEASES, else from the E4M3 overflow
    rule observed here (the one rule that tells the two ranges apart)."""
    release = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    if release in TORCH_RELEASES:
        return TORCH_RELEASES[release]
    probe = torch.tensor([480.0], device=device).to(torch.float8_e4m3fn).view(torch.uint8).item()
    dialect = "torch@2.11" if probe == 0x7F else "torch@2.15"
    print(f"torch {torch.__version__} is not a measured release; its E4M3 cast of 480.0 gives 0x{probe:02X}, "
          f"so {dialect} is claimed (the conformance test checks every value)")
    return dialect


def torch_claims(dialect):
    """(convert, unclaimed reason) per torch dtype."""
    e4m3_saturation = "none" if dialect == "torch@2.11" else "finite"
    return {
        "float8_e4m3fn": (f"e4m3:nearest-even:{e4m3_saturation}:{dialect}", None),
        "float8_e8m0fnu": (f"e8m0:nearest-even:none:{dialect}", None),
    }


# ml_dtypes releases measured over all 2^32 inputs (tests/reference/ml_dtypes_dialect_test.cpp)
# and the mxv dialect each one is: 0.7 rounds E8M0 of fp32 subnormals to nearest by value, 0.6 up.
ML_DTYPES_RELEASES = {"0.6": "ml_dtypes@0.6", "0.7": "ml_dtypes"}


def ml_dtypes_dialect():
    """The mxv dialect claimed for this ml_dtypes: from ML_DTYPES_RELEASES, else from the E8M0
    rounding of the fp32 subnormal just above 2^-127 (the one rule that tells them apart)."""
    release = ".".join(ml_dtypes.__version__.split(".")[:2])
    if release in ML_DTYPES_RELEASES:
        return ML_DTYPES_RELEASES[release]
    probe = np.array([0x00400001], dtype=np.uint32).view(F32).astype(ml_dtypes.float8_e8m0fnu).view(np.uint8)[0]
    dialect = "ml_dtypes@0.6" if probe == 0x01 else "ml_dtypes"
    print(f"ml_dtypes {ml_dtypes.__version__} is not a measured release; its E8M0 cast of 0x00400001 gives "
          f"0x{probe:02X}, so {dialect} is claimed (the conformance test checks every value)")
    return dialect


def ml_dtypes_claims(dialect):
    """(convert, unclaimed reason) per ml_dtypes type."""
    return {
        "float8_e4m3fn": (f"e4m3:nearest-even:none:{dialect}", None),
        "float8_e8m0fnu": (f"e8m0:nearest-even:none:{dialect}", None),
        "float4_e2m1fn": (f"e2m1:nearest-even:finite:{dialect}", None),
    }


def main():
    args = parse_args(__doc__)
    x = cast_inputs()
    if torch is None:
        print("torch is not installed: no torch capture")
    else:
        capture_torch(args, x)
    if args.device != "cpu":
        return
    if ml_dtypes is None:
        print("ml_dtypes is not installed: no ml_dtypes capture")
        return
    out = CaptureFile(os.path.join(args.out, f"ml_dtypes-{ml_dtypes.__version__}.h5"), "ml_dtypes",
                      ml_dtypes.__version__, torch.__version__ if torch else "none", "cpu")
    for name, (convert, reason) in ml_dtypes_claims(ml_dtypes_dialect()).items():
        codes = x.astype(getattr(ml_dtypes, name)).view(np.uint8)
        out.add("ml_dtypes_astype", name, function=f"x.astype(ml_dtypes.{name})", mode="cast", element=name,
                block_size=0, preset="", x=x, suite="casts", codes=codes, convert=convert, unclaimed=reason)
    out.close()
    print(f"ml_dtypes casts: {out.groups} groups")


def capture_torch(args, x):
    """torch's casts on args.device into torch-casts-<version>[-<device>].h5."""
    version = torch.__version__.split("+")[0]
    claims = torch_claims(torch_dialect(args.device))
    out = CaptureFile(capture_path(args, "torch-casts", version), "torch", version, torch.__version__, args.device)
    for name in ("float8_e4m3fn", "float8_e8m0fnu", "float4_e2m1fn_x2"):
        convert, reason = claims.get(name, ("", "torch has no elementwise cast to this dtype"))
        common = dict(function=f"x.to(torch.{name})", mode="cast", element=name, block_size=0, preset="",
                      x=x, suite="casts", convert=convert, unclaimed=reason)
        try:
            codes = torch.from_numpy(x).to(args.device).to(getattr(torch, name)).view(torch.uint8).cpu().numpy()
        except Exception as e:  # no such cast in this torch
            out.add("torch_cast", name, error=f"{type(e).__name__}: {e}", **common)
            continue
        out.add("torch_cast", name, codes=codes, **common)
    out.close()
    print(f"torch casts: {out.groups} groups")


if __name__ == "__main__":
    main()
