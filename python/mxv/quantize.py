"""Block-scaled quantization with any recipe (mxv.Recipe or a preset name), dequantization,
SwiGLU + quantize, and the scale layouts (docs/semantics.md, "Block scaling" and "Layouts")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _core
from ._arrays import as_array, matrix_shape, raw_bytes, typed, wide_input, wide_output

RecipeLike = Union[str, _core.Recipe]
SCALE_LAYOUTS = ("linear", "swizzled128x4")


def as_recipe(recipe: RecipeLike) -> _core.Recipe:
    """A Recipe from a Recipe or a preset name."""
    if isinstance(recipe, _core.Recipe):
        return recipe
    if isinstance(recipe, str):
        return _core.Recipe(recipe)
    raise TypeError(f"recipe: expected mxv.Recipe or a preset name, got {type(recipe).__name__}")


@dataclass
class Quantized:
    """What quantization produced. ``elements``: uint8 [rows, ceil(cols/2)] packed E2M1 or
    [rows, cols] E4M3. ``scales``: uint8, [rows, scale_cols] when linear, else the swizzled buffer
    (1-D, padding 0). ``global_scale``: fp32 decode scale(s) s_dec, one per group when
    scale_per_group (1.0 for MX recipes). The rest are the reference's intermediates, in logical
    order: what the check uses to explain a mismatch."""

    recipe: _core.Recipe
    rows: int
    cols: int
    scale_cols: int
    scale_layout: str
    elements: np.ndarray
    scales: np.ndarray
    global_scale: np.ndarray
    amax: np.ndarray
    s_enc: np.ndarray
    scale_codes: np.ndarray
    block_amax: np.ndarray
    scale_input: np.ndarray
    prescaled: np.ndarray
    activated: Optional[np.ndarray] = field(default=None)  # swiglu_quantize only

    def dequantize(self) -> np.ndarray:
        """fp32 [rows, cols] decoded from this result's own buffers."""
        return dequantize(self.elements, self.scales, self.global_scale, self.recipe, cols=self.cols,
                          scale_layout=self.scale_layout)

    def __repr__(self) -> str:
        return (f"Quantized({self.recipe.name}, rows={self.rows}, cols={self.cols}, "
                f"elements={self.elements.shape}, scales={self.scales.shape} {self.scale_layout}, "
                f"global_scale={self.global_scale.tolist()})")


def _wrap(recipe: _core.Recipe, d: dict) -> Quantized:
    scales = d["scales"]
    if d["scale_layout"] == "linear" and scales.size == d["rows"] * d["scale_cols"]:
        scales = scales.reshape(d["rows"], d["scale_cols"])
    return Quantized(recipe=recipe, rows=d["rows"], cols=d["cols"], scale_cols=d["scale_cols"],
                     scale_layout=d["scale_layout"], elements=d["elements"], scales=scales,
                     global_scale=d["global_scale"], amax=d["amax"], s_enc=d["s_enc"],
                     scale_codes=d["scale_codes"], block_amax=d["block_amax"],
                     scale_input=d["scale_input"], prescaled=d["prescaled"], activated=d.get("activated"))


def quantize(x: Any, recipe: RecipeLike = "nvfp4_te", *, scale_layout: str = "linear",
             group_counts: Optional[Sequence[int]] = None, scale_per_group: bool = False,
             tensor_amax: Optional[float] = None, input_type: Optional[str] = None) -> Quantized:
    """Quantize activations ``x`` [rows, cols] (fp32 / fp16 / bf16; 1-D is one row) with
    ``recipe``. ``group_counts``: MoE rows per expert (each expert's swizzled scales start at a
    128-row boundary). ``tensor_amax``: a calibrated NVFP4 amax instead of max |x|."""
    r = as_recipe(recipe)
    data, wide, shape = wide_input(x, input_type)
    rows, cols = matrix_shape(shape, "quantize")
    d = _core.quantize(r, data, wide, rows, cols, scale_layout, list(group_counts or []), scale_per_group,
                       tensor_amax)
    return _wrap(r, d)


def dequantize(elements: Any, scales: Any, global_scale: Any = None, recipe: RecipeLike = "nvfp4_te", *,
               cols: Optional[int] = None, rows: Optional[int] = None, scale_layout: str = "linear",
               group_counts: Optional[Sequence[int]] = None) -> np.ndarray:
    """fp32 [rows, cols] = element * block scale * global scale. ``rows`` defaults to the first
    dimension of ``elements``; ``cols`` to its row length (2 per byte for packed E2M1: give an odd
    K explicitly). ``global_scale``: one fp32 per group (None: 1.0)."""
    r = as_recipe(recipe)
    el, _ = as_array(elements)
    if el.ndim != 2:
        raise ValueError(f"dequantize: elements must be 2-D [rows, row_bytes], got shape {el.shape}")
    rows = el.shape[0] if rows is None else rows
    if cols is None:
        cols = el.shape[1] * (2 if r.element_bits == 4 else 1)
    gs = typed([1.0] if global_scale is None else global_scale, np.float32, "global_scale")
    return _core.dequantize(r, raw_bytes(el), raw_bytes(typed(scales, np.uint8, "scales")), raw_bytes(gs),
                            rows, cols, scale_layout, list(group_counts or []))


WEIGHT_PACKINGS = ("k-packed", "n-packed")


def dequantize_weights(packed: Any, scales: Any, s_dec: Any = None, recipe: RecipeLike = "nvfp4_te", *,
                       packing: str = "k-packed", out_type: str = "fp32") -> np.ndarray:
    """MoE expert weights, packed E2M1 with one scale per block of K, dequantized to [E, N, K]
    (docs/semantics.md section 5): element * scale [* s_dec] in fp32, rounded once to ``out_type``
    ('fp32', 'fp16', or 'bf16' as uint16 bit patterns). ``packed``: uint8 [E, N, K/2] with
    ``packing='k-packed'`` (most GEMM libraries) or [E, K, N/2] with 'n-packed' (ONNX Runtime
    QMoE); a 2-D array is one expert, and the result is then 2-D. ``scales``: uint8
    [E, N, ceil(K/block)]. ``s_dec``: the NVFP4 fp32 decode scale, one for all experts or one per
    expert (MX recipes ignore it)."""
    r = as_recipe(recipe)
    p = typed(packed, np.uint8, "packed")
    if p.ndim not in (2, 3):
        raise ValueError(f"dequantize_weights: packed must be 3-D [E, ., .] or 2-D (one expert), got shape {p.shape}")
    one_expert = p.ndim == 2
    experts, a, b = (1,) + p.shape if one_expert else p.shape
    if packing in ("k", "k-packed"):
        n, k = a, 2 * b
    elif packing in ("n", "n-packed"):
        k, n = a, 2 * b
    else:
        raise ValueError(f"packing: expected one of {', '.join(WEIGHT_PACKINGS)}, got '{packing}'")
    global_scale = typed([] if s_dec is None else s_dec, np.float32, "s_dec")
    raw = _core.dequantize_weights(r, raw_bytes(p), raw_bytes(typed(scales, np.uint8, "scales")),
                                   raw_bytes(global_scale), packing, experts, n, k, out_type)
    out = wide_output(raw, out_type, (experts, n, k))
    return out[0] if one_expert else out


def swiglu_quantize(gate_up: Any, recipe: RecipeLike = "nvfp4_te", *, gate_up_layout: str = "halves",
                    rows_per_expert: Optional[Sequence[int]] = None, scale_layout: str = "swizzled128x4",
                    scale_per_expert: bool = False, tensor_amax: Optional[float] = None, fused: bool = True,
                    input_type: Optional[str] = None) -> Quantized:
    """SwiGLU of a gate/up GEMM output [rows, 2I] (fp32 or bf16) then quantization of the
    activated [rows, I]; ``gate_up_layout`` 'halves' or 'interleaved:G'. ``fused=False`` models
    the two-kernel pipeline (bf16 intermediate tensor). ``Quantized.activated`` holds the fp32
    values handed to the quantizer."""
    r = as_recipe(recipe)
    data, wide, shape = wide_input(gate_up, input_type)
    rows, two_i = matrix_shape(shape, "swiglu_quantize")
    if two_i % 2:
        raise ValueError(f"swiglu_quantize: gate_up has {two_i} columns; it needs 2*I")
    d = _core.swiglu_quantize(r, data, wide, rows, two_i // 2, gate_up_layout, list(rows_per_expert or []),
                              scale_layout, scale_per_expert, tensor_amax, fused)
    return _wrap(r, d)


def arrange_scales(linear: Any, layout: str, *, group_counts: Optional[Sequence[int]] = None) -> np.ndarray:
    """Linear scale codes [rows, kb] -> the buffer of ``layout`` (1-D, padding 0)."""
    arr, _ = as_array(linear)
    if arr.ndim != 2 or arr.dtype != np.uint8:
        raise ValueError(f"arrange_scales: expected uint8 [rows, kb], got {arr.dtype} {arr.shape}")
    return _core.arrange_scales(layout, raw_bytes(arr), arr.shape[0], list(group_counts or []), arr.shape[1])


def gather_scales(arranged: Any, layout: str, rows: int, kb: int, *,
                  group_counts: Optional[Sequence[int]] = None) -> np.ndarray:
    """The buffer of ``layout`` -> linear scale codes [rows, kb]."""
    out = _core.gather_scales(layout, raw_bytes(typed(arranged, np.uint8, "arranged")), rows,
                              list(group_counts or []), kb)
    return out.reshape(rows, kb)


def scale_buffer_size(layout: str, rows: int, kb: int, *, group_counts: Optional[Sequence[int]] = None) -> int:
    """Bytes of a scale buffer in ``layout`` for ``rows`` rows of ``kb`` blocks (padding included)."""
    return _core.scale_buffer_size(layout, rows, list(group_counts or []), kb)
