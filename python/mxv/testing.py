"""pytest helpers: assertions whose failure message is the classified check report."""

from __future__ import annotations

from typing import Any

from .check import QuantizeCheck, check, check_quantize
from .quantize import RecipeLike


def assert_quantize_equal(x: Any, elements: Any, scales: Any, global_scale: Any = None,
                          recipe: RecipeLike = "nvfp4_te", **options: Any) -> QuantizeCheck:
    """Assert that a candidate quantizer's outputs for ``x`` are byte-equal to mxv's reference.
    Options are those of mxv.check_quantize (scale_layout, group_counts, tensor_amax, ...). On a
    difference raises AssertionError whose message is the report (class counts, coordinates,
    input bits, expected and actual codes)."""
    __tracebackhide__ = True  # pytest: show the caller's line, not this one
    result = check_quantize(x, elements, scales, global_scale, recipe, **options)
    if not result.ok:
        raise AssertionError("quantized outputs differ from the mxv reference\n" + str(result))
    return result


def assert_byte_exact(expected: Any, actual: Any, kind: str, **options: Any) -> None:
    """Assert ``mxv.check(expected, actual, kind, **options).ok``; the message is the report."""
    __tracebackhide__ = True
    report = check(expected, actual, kind, **options)
    if not report.ok:
        raise AssertionError(str(report))
