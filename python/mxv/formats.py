"""Format encode / decode: E2M1, E4M3, UE4M3 and E8M0 codes, every rounding, saturation and
dialect of the C++ reference (docs/semantics.md, "Formats")."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _core
from ._arrays import as_array, raw_bytes, wide_input

FORMATS = ("e2m1", "e4m3", "ue4m3", "e8m0")
ROUNDINGS = ("nearest-even", "toward-zero", "up")
SATURATIONS = ("finite", "none")
DIALECTS = ("cuda", "ml_dtypes", "torch", "torch@2.11", "ml_dtypes@0.6")
# "ml_dtypes" is ml_dtypes 0.7 (also "ml_dtypes@0.7"), "torch" is torch 2.15 (also "torch@2.15")


def encode(x: Any, format: str, *, rounding: str = "nearest-even", saturation: str = "finite",
           dialect: str = "cuda", input_type: Optional[str] = None) -> np.ndarray:
    """Codes of ``format`` (uint8, one per value, same shape as ``x``; E2M1 in the low nibble).

    ``x`` is float32, float16 or bfloat16 (numpy, ml_dtypes or torch); bf16/fp16 inputs are
    widened exactly, never rounded twice. Raises ValueError for a mode the format does not have
    in that dialect (e.g. E8M0 nearest-even in the cuda dialect), with the C++ message.
    """
    data, wide, shape = wide_input(x, input_type)
    return _core.encode(data, wide, format, rounding, saturation, dialect).reshape(shape)


def decode(codes: Any, format: str, *, dialect: str = "cuda") -> np.ndarray:
    """fp32 values (same shape) of uint8 ``codes`` of ``format``, exactly. A code the format does
    not have raises ValueError naming its index."""
    arr, _ = as_array(codes)
    if arr.dtype != np.uint8:
        raise ValueError(f"decode: codes must be uint8, got {arr.dtype}")
    return _core.decode(raw_bytes(arr), format, dialect).reshape(arr.shape)


def pack_e2m1(codes: Any) -> np.ndarray:
    """E2M1 nibbles [..., K] -> packed bytes [..., ceil(K/2)]: element 2i in bits [3:0], 2i+1 in
    [7:4] (docs/semantics.md, "Packing"); an odd K leaves the last high nibble 0."""
    arr, _ = as_array(codes)
    arr = arr.astype(np.uint8, copy=False)
    if arr.size and int(arr.max()) > 0xF:
        raise ValueError("pack_e2m1: codes must be nibbles 0..15")
    if arr.shape[-1] % 2:
        arr = np.concatenate([arr, np.zeros(arr.shape[:-1] + (1,), np.uint8)], axis=-1)
    return (arr[..., 0::2] | (arr[..., 1::2] << 4)).astype(np.uint8)


def unpack_e2m1(packed: Any, count: Optional[int] = None) -> np.ndarray:
    """Packed E2M1 bytes [..., B] -> nibbles [..., count] (default 2B)."""
    arr, _ = as_array(packed)
    arr = arr.astype(np.uint8, copy=False)
    out = np.stack([arr & 0xF, arr >> 4], axis=-1).reshape(arr.shape[:-1] + (2 * arr.shape[-1],))
    return out if count is None else out[..., :count]
