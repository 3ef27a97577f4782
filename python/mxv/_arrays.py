"""Turning what callers pass (numpy arrays, ml_dtypes bfloat16 arrays, torch tensors, anything
with ``__array__`` or, on the CPU, DLPack) into the raw little-endian byte buffers that mxv._core takes."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

_WIDE_TYPES = ("fp32", "bf16", "fp16")
# How a result of each wide type comes back: numpy has no bfloat16, so bf16 is its uint16 bit
# patterns (``.view(ml_dtypes.bfloat16)`` gives the values).
_NUMPY_OF_WIDE = {"fp32": np.float32, "bf16": np.uint16, "fp16": np.float16}


def _from_torch(x: Any) -> Tuple[np.ndarray, Optional[str]]:
    """A torch tensor on the host as numpy; bf16 as its uint16 bits. CUDA tensors are copied to
    the host first (docs/packages.md)."""
    import torch  # only reached for torch tensors

    t = x.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(np.uint16), "bf16"
    return t.contiguous().numpy(), None


_DLPACK_CPU = 1  # kDLCPU in DLPack's DLDeviceType


def _from_dlpack(x: Any) -> np.ndarray:
    """A tensor that exposes only DLPack (``__dlpack__``, no ``__array__``: JAX, CuPy, ...) as a
    numpy view through numpy.from_dlpack (numpy >= 1.22). Only host memory can be viewed; a tensor
    on another device is refused (copy it to the host first)."""
    device_type, device_id = x.__dlpack_device__()
    if int(device_type) != _DLPACK_CPU:
        raise ValueError(f"a DLPack tensor on device type {int(device_type)} (id {device_id}) is not in host "
                         "memory: copy it to the CPU first (mxv runs the reference on the CPU)")
    return np.from_dlpack(x)


def as_array(x: Any) -> Tuple[np.ndarray, Optional[str]]:
    """``x`` as a C-contiguous numpy array, and "bf16" when its values are bf16 bit patterns."""
    if type(x).__module__.startswith("torch"):
        arr, wide = _from_torch(x)
    elif hasattr(x, "__dlpack__") and not hasattr(x, "__array__"):
        arr, wide = _from_dlpack(x), None
    else:
        arr, wide = np.asarray(x), None
    if arr.dtype.name == "bfloat16":  # ml_dtypes.bfloat16
        arr, wide = arr.view(np.uint16), "bf16"
    return np.ascontiguousarray(arr), wide


def wide_input(x: Any, input_type: Optional[str]) -> Tuple[np.ndarray, str, Tuple[int, ...]]:
    """(bytes, type name, shape) of an activation tensor. float32 -> fp32, float16 -> fp16,
    bfloat16 -> bf16; uint16 bit patterns need input_type='bf16' or 'fp16'. Other dtypes (float64
    included: it would be rounded on the way) raise ValueError."""
    arr, wide = as_array(x)
    if input_type is not None and input_type not in _WIDE_TYPES:
        raise ValueError(f"input_type: expected one of {', '.join(_WIDE_TYPES)}, got '{input_type}'")
    if wide is None:
        if arr.dtype == np.float32:
            wide = "fp32"
        elif arr.dtype == np.float16:
            wide = "fp16"
        elif arr.dtype == np.uint16 and input_type in ("bf16", "fp16"):
            wide = input_type
        else:
            raise ValueError(
                f"input dtype {arr.dtype} is not float32, float16 or bfloat16 (uint16 bit patterns need "
                "input_type='bf16' or 'fp16'); convert explicitly, mxv never rounds an input silently")
    if input_type is not None and input_type != wide:
        raise ValueError(f"input_type '{input_type}' does not match the data ({wide})")
    return raw_bytes(arr), wide, tuple(arr.shape)


def raw_bytes(x: Any) -> np.ndarray:
    """The bytes of ``x`` (any dtype) as a 1-D uint8 array, in C order."""
    arr, _ = as_array(x)
    return arr.reshape(-1).view(np.uint8)


def matrix_shape(shape: Tuple[int, ...], what: str) -> Tuple[int, int]:
    """(rows, cols) of a 1-D (one row) or 2-D tensor; leading dimensions fold into rows."""
    if len(shape) == 0:
        raise ValueError(f"{what}: a scalar is not a tensor of rows")
    if len(shape) == 1:
        return 1, int(shape[0])
    rows = 1
    for d in shape[:-1]:
        rows *= int(d)
    return rows, int(shape[-1])


def typed(x: Any, dtype: Any, what: str) -> np.ndarray:
    """``x`` (numpy, torch on any device, ...) as a contiguous array of exactly ``dtype``; a Python
    list or scalar is converted, an array of another dtype is a ValueError (never cast silently)."""
    if isinstance(x, (list, tuple, int, float)):
        return np.ascontiguousarray(np.asarray(x, dtype=dtype))
    arr, _ = as_array(x)
    if arr.dtype != np.dtype(dtype):
        raise ValueError(f"{what}: expected {np.dtype(dtype)}, got {arr.dtype}")
    return arr


def wide_output(raw: np.ndarray, out_type: str, shape: Tuple[int, ...]) -> np.ndarray:
    """The little-endian bytes of an ``out_type`` result (from mxv._core) as an array of ``shape``:
    float32 for fp32, float16 for fp16, uint16 bit patterns for bf16."""
    return raw.view(_NUMPY_OF_WIDE[out_type]).reshape(shape)
