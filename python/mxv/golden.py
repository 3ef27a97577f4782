"""Golden and candidate files (docs/golden-files.md) from Python: a thin layer over h5py that
lists cases, reads their inputs and expected outputs, gives the arguments of the matching mxv
call, and writes a candidate's outputs into the datasets `mxv golden template` created (same
dtype and shape, or ValueError). Needs h5py."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

import numpy as np

from . import _core
from ._arrays import raw_bytes, wide_output
from ._core import Recipe
from .formats import encode, pack_e2m1, unpack_e2m1
from .quantize import dequantize_weights, quantize, swiglu_quantize

# The schema's attribute name for Recipe.tensor_amax (the policy), which clashes with the case's
# own `tensor_amax` (a calibrated amax).
_FIELD_OF_ATTR = {"tensor_amax_policy": "tensor_amax"}


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, (bytes, np.bytes_)) else value


class Case:
    """One case: ``attrs`` (decoded), ``inputs`` / ``expected`` / ``outputs`` as dicts of numpy
    arrays (read on access), ``recipe`` and ``kwargs()`` for mxv.quantize / check_quantize."""

    def __init__(self, group: Any):
        self._group = group
        self.name: str = group.name.rsplit("/", 1)[-1]
        self.attrs: Dict[str, Any] = {k: _text(v) for k, v in group.attrs.items()}

    def _read(self, sub: str) -> Dict[str, np.ndarray]:
        return {k: v[...] for k, v in self._group[sub].items()} if sub in self._group else {}

    @property
    def op(self) -> str:
        return self.attrs["op"]

    @property
    def inputs(self) -> Dict[str, np.ndarray]:
        return self._read("inputs")

    @property
    def expected(self) -> Dict[str, np.ndarray]:
        return self._read("expected")

    @property
    def outputs(self) -> Dict[str, np.ndarray]:
        return self._read("outputs")

    @property
    def recipe(self) -> Optional[Recipe]:
        """The case's full recipe (its preset, then every stored recipe.* field), or None."""
        if "recipe.name" not in self.attrs:
            return None
        recipe = Recipe(self.attrs["recipe.name"])
        for key, value in self.attrs.items():
            if key.startswith("recipe.") and key != "recipe.name":
                field = _FIELD_OF_ATTR.get(key[7:], key[7:])
                setattr(recipe, field, value if isinstance(value, str) else type(getattr(recipe, field))(value))
        return recipe

    def kwargs(self) -> Dict[str, Any]:
        """Keyword arguments of mxv.quantize / mxv.check_quantize for a quantize case."""
        if self.op != "quantize":
            raise ValueError(f"{self.name}: kwargs() covers quantize cases, this one is '{self.op}'")
        dtype = self.attrs["dtype"]
        out: Dict[str, Any] = {"recipe": self.recipe, "scale_layout": self.attrs["scale_layout"],
                               "group_counts": [int(g) for g in self.attrs.get("groups", [])],
                               "input_type": None if dtype == "fp32" else dtype}
        if "tensor_amax" in self.attrs:
            out["tensor_amax"] = float(self.attrs["tensor_amax"])
        return out

    def run(self) -> Dict[str, np.ndarray]:
        """This module's results for the case, named and laid out as the case's expected
        datasets (packed E2M1 codes, swizzled scale buffers, bf16 / fp16 as uint16 bits): the
        matching mxv call (encode, decode, quantize, dequantize_weights, swiglu_quantize) on the
        stored inputs with the stored parameters. Byte-equal to ``expected`` for the committed set
        (python/tests/test_golden.py)."""
        a, x = self.attrs, self.inputs
        dtype = a["dtype"]
        wide = None if dtype == "fp32" else dtype
        if self.op == "encode":
            codes = encode(x["x"], a["format"], rounding=a["rounding"], saturation=a["saturation"],
                                   dialect=a["dialect"], input_type=wide)
            return {"codes": pack_e2m1(codes) if a["format"] == "e2m1" else codes}
        if self.op == "decode":
            codes = x["codes"]
            if a["format"] == "e2m1":
                codes = unpack_e2m1(codes, int(a["cols"]))
            raw = _core.decode_wide(raw_bytes(codes), a["format"], a["dialect"], dtype)
            return {"values": wide_output(raw, dtype, codes.shape)}
        if self.op == "dequantize":
            out = dequantize_weights(x["packed"], x["scales"], x.get("s_dec"), self.recipe,
                                              packing=a["packing"], out_type=dtype)
            return {"out": out}
        if self.op == "quantize":
            q = quantize(x["x"], **self.kwargs())
        elif self.op == "swiglu_quantize":
            q = swiglu_quantize(x["gate_up"], self.recipe, gate_up_layout=a["gate_up_layout"],
                                         rows_per_expert=[int(g) for g in a.get("groups", [])],
                                         scale_layout=a["scale_layout"], tensor_amax=a.get("tensor_amax"),
                                         input_type=wide)
        else:
            raise ValueError(f"{self.name}: no mxv call for op '{self.op}'")
        out = {"elements": q.elements, "scales": q.scales}
        if q.recipe.is_nvfp4:  # the tensor scale; quantize cases also store the amax it came from
            out["s_dec"] = q.global_scale
            if self.op == "quantize":
                out["amax"] = q.amax
        return out

    def write_outputs(self, **arrays: Any) -> None:
        """Fill ``outputs/<name>`` of a candidate case; each array must have the dataset's shape
        and dtype (nothing is converted, nothing is written unless all fit)."""
        if "outputs" not in self._group:
            raise ValueError(f"{self.name}: not a candidate case (no outputs/ group)")
        outs = self._group["outputs"]
        checked = {}
        for key, value in arrays.items():
            if key not in outs:
                raise ValueError(f"{self.name}: no output '{key}' (have: {', '.join(outs)})")
            arr = np.asarray(value)
            ds = outs[key]
            if arr.dtype != ds.dtype or arr.shape != ds.shape:
                raise ValueError(f"{self.name}: output '{key}' must be {ds.dtype} {ds.shape}, got {arr.dtype} {arr.shape}")
            checked[key] = arr
        for key, arr in checked.items():
            outs[key][...] = arr

    def __repr__(self) -> str:
        return f"<mxv.golden.Case {self.name}: {self.attrs.get('summary', self.op)}>"


class GoldenFile:
    """An open golden or candidate file; use as a context manager. ``content`` is 'golden' or
    'candidate'; ``cases()`` lists the names; ``case(name)`` or iteration gives Case objects."""

    def __init__(self, path: str, mode: str = "r"):
        import h5py

        self._file = h5py.File(path, mode)
        if _text(self._file.attrs.get("schema", b"")) != "mxv-golden":
            self._file.close()
            raise ValueError(f"{path}: an HDF5 file, but not an mxv golden file (no schema attribute 'mxv-golden')")
        self.attrs: Dict[str, Any] = {k: _text(v) for k, v in self._file.attrs.items()}
        self.content: str = self.attrs.get("content", "")

    def cases(self) -> List[str]:
        return sorted(self._file["cases"])

    def case(self, name: str) -> Case:
        if name not in self._file["cases"]:
            raise KeyError(f"no case '{name}'")
        return Case(self._file["cases"][name])

    def __iter__(self) -> Iterator[Case]:
        return (self.case(n) for n in self.cases())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "GoldenFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open(path: str, mode: str = "r") -> GoldenFile:  # noqa: A001 (mirrors h5py.File / builtins.open)
    """Open a golden file ('r') or a candidate file to fill ('r+')."""
    return GoldenFile(path, mode)
