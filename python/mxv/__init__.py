"""mxv: bit-exact reference models and a classifying checker for block-scaled low-precision
formats (MXFP4, NVFP4, MXFP8), for numpy arrays and CPU torch tensors.

    import mxv
    q = mxv.quantize(x, "nvfp4_te")                  # elements, scales, global_scale, ...
    mxv.testing.assert_quantize_equal(x, my_elements, my_scales, my_global_scale, recipe="nvfp4_te")

docs/packages.md describes the module; docs/semantics.md the formats and recipes.
"""

from __future__ import annotations

from . import _core, golden, testing
from ._core import Mismatch, Recipe, Report, class_names, library_preset_names, preset_names
from .check import CHECK_LAYOUTS, CODE_KINDS, QuantizeCheck, check, check_quantize
from .formats import DIALECTS, FORMATS, ROUNDINGS, SATURATIONS, decode, encode, pack_e2m1, unpack_e2m1
from .quantize import (SCALE_LAYOUTS, WEIGHT_PACKINGS, Quantized, arrange_scales, dequantize,
                       dequantize_weights, gather_scales, quantize, scale_buffer_size, swiglu_quantize)

__version__ = _core.__version__

__all__ = [
    "CHECK_LAYOUTS", "CODE_KINDS", "DIALECTS", "FORMATS", "Mismatch", "QuantizeCheck", "Quantized", "ROUNDINGS",
    "Recipe", "Report", "SATURATIONS", "SCALE_LAYOUTS", "WEIGHT_PACKINGS", "arrange_scales", "check", "check_quantize", "class_names",
    "decode", "dequantize", "dequantize_weights", "encode", "gather_scales", "golden", "library_preset_names", "pack_e2m1", "preset_names", "quantize", "scale_buffer_size",
    "swiglu_quantize", "testing", "unpack_e2m1",
]
