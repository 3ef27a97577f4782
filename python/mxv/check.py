"""The check library from Python: byte-exact comparison where every difference is explained
(docs/verification.md). ``mxv.check`` compares any buffer with a model's; ``mxv.check_quantize``
runs the reference quantizer on the inputs and compares a candidate's three outputs with it."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Sequence

import numpy as np

from . import _core
from ._arrays import as_array, matrix_shape, raw_bytes, typed, wide_input
from .quantize import RecipeLike, as_recipe

CODE_KINDS = ("e2m1x2", "e4m3", "ue4m3", "e8m0", "bf16", "fp16", "fp32")
CHECK_LAYOUTS = ("row-major", "swizzled-128x4")


def check(expected: Any, actual: Any, kind: str, *, rows: Optional[int] = None, cols: Optional[int] = None,
          batches: int = 1, layout: str = "row-major", name: str = "output",
          group_rows: Optional[Sequence[int]] = None, row_align: int = 1, sentinel: Optional[int] = None,
          guard_before: int = 0, guard_after: int = 0, boundary_ulps: int = 4, max_listed: int = 16) -> _core.Report:
    """Compare ``actual`` with the model's ``expected`` (both compared as raw bytes).

    ``kind``: one of CODE_KINDS. ``rows`` / ``cols`` (elements per row; blocks for scales) default
    to ``expected``'s shape (for packed 'e2m1x2', 2 per byte). ``sentinel``: the byte the candidate
    buffer was filled with before the run (unwritten slots become 'never-written'). Returns a
    Report: ``ok``, ``counts``, ``listed`` and ``str(report)``, the C++ text report.
    """
    exp, _ = as_array(expected)
    if rows is None or cols is None:
        r, c = matrix_shape(exp.shape, "check")
        if kind == "e2m1x2":
            c *= 2
        elif kind in ("bf16", "fp16", "fp32") and exp.dtype == np.uint8:
            raise ValueError("check: give rows and cols for a wide-float tensor passed as bytes")
        rows = r if rows is None else rows
        cols = c if cols is None else cols
    return _core.compare(name, kind, layout, batches, rows, cols, list(group_rows or []), row_align,
                         raw_bytes(exp), raw_bytes(actual), sentinel, guard_before, guard_after, boundary_ulps,
                         max_listed)


class QuantizeCheck:
    """The reports of one quantize check: elements, scales and (NVFP4) global_scale. ``ok`` when
    all agree; ``str()`` is their C++ text reports, one after another."""

    def __init__(self, reports: List[_core.Report]):
        self.reports = reports

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.reports)

    @property
    def counts(self) -> Dict[str, int]:
        """Mismatches per class over every report."""
        total: Dict[str, int] = {}
        for r in self.reports:
            for k, v in r.counts.items():
                total[k] = total.get(k, 0) + v
        return total

    def __getitem__(self, name: str) -> _core.Report:
        for r in self.reports:
            if r.name == name:
                return r
        raise KeyError(f"no report named '{name}' (have: {', '.join(r.name for r in self.reports)})")

    def __iter__(self) -> Iterator[_core.Report]:
        return iter(self.reports)

    def __str__(self) -> str:
        return "\n".join(r.text() for r in self.reports)

    def __repr__(self) -> str:
        return "<mxv.QuantizeCheck " + "; ".join(r.summary() for r in self.reports) + ">"


def check_quantize(x: Any, elements: Any, scales: Any, global_scale: Any = None, recipe: RecipeLike = "nvfp4_te",
                   *, scale_layout: str = "linear", group_counts: Optional[Sequence[int]] = None,
                   scale_per_group: bool = False, tensor_amax: Optional[float] = None,
                   input_type: Optional[str] = None, sentinel: Optional[int] = None, boundary_ulps: int = 4,
                   max_listed: int = 16) -> QuantizeCheck:
    """Quantize ``x`` with the reference and compare a candidate's ``elements`` (packed E2M1 /
    E4M3 bytes), ``scales`` (codes in ``scale_layout``) and ``global_scale`` (fp32 s_dec, NVFP4;
    None skips it) byte for byte. Mismatches are classified and explained with the input bits,
    the pre-rounding value and the block amax."""
    r = as_recipe(recipe)
    data, wide, shape = wide_input(x, input_type)
    rows, cols = matrix_shape(shape, "check_quantize")
    gs = None if global_scale is None else raw_bytes(typed(global_scale, np.float32, "global_scale"))
    reports = _core.check_quantize(r, data, wide, rows, cols, raw_bytes(elements), raw_bytes(scales), gs, scale_layout,
                                   list(group_counts or []), scale_per_group, tensor_amax, sentinel, boundary_ulps,
                                   max_listed)
    return QuantizeCheck(reports)
