"""The Python module reproduces the committed golden set (written by the C++ reference through
`mxv golden regen`) byte for byte: every quantize case of golden/quantize.h5, read with h5py."""

import numpy as np
import pytest

import mxv
from conftest import GOLDEN

h5py = pytest.importorskip("h5py")

FIELD_OF_ATTR = {"tensor_amax_policy": "tensor_amax"}  # the schema's name for Recipe.tensor_amax


def recipe_of(attrs):
    """The case's Recipe: its preset, then every recipe.* attribute (the schema stores them all),
    each converted to the type of the field it sets."""
    recipe = mxv.Recipe(attrs["recipe.name"].decode())
    for key, value in attrs.items():
        if not key.startswith("recipe.") or key == "recipe.name":
            continue
        field = FIELD_OF_ATTR.get(key[7:], key[7:])
        current = getattr(recipe, field)
        value = value.decode() if isinstance(value, (bytes, np.bytes_)) else type(current)(value)
        setattr(recipe, field, value)
    return recipe


def quantize_cases():
    with h5py.File(GOLDEN / "quantize.h5", "r") as f:
        return sorted(f["cases"])


@pytest.mark.parametrize("name", quantize_cases())
def test_quantize_case_is_byte_equal(name):
    with h5py.File(GOLDEN / "quantize.h5", "r") as f:
        case = f["cases"][name]
        a = case.attrs
        x = case["inputs/x"][...]
        expected = {k: case["expected"][k][...] for k in case["expected"]}
        recipe = recipe_of(a)
        dtype = a["dtype"].decode()
        groups = [int(g) for g in a["groups"]]
        amax = float(a["tensor_amax"]) if "tensor_amax" in a else None
        layout = a["scale_layout"].decode()
    q = mxv.quantize(x, recipe, input_type=None if dtype == "fp32" else dtype, group_counts=groups,
                     tensor_amax=amax, scale_layout=layout)
    assert q.elements.tobytes() == expected["elements"].tobytes()
    assert q.scales.tobytes() == expected["scales"].tobytes()
    if "s_dec" in expected:
        assert q.global_scale.tobytes() == expected["s_dec"].tobytes()
        assert q.amax.tobytes() == expected["amax"].tobytes()
    # The reference's own outputs pass the check.
    result = mxv.check_quantize(x, expected["elements"], expected["scales"], expected.get("s_dec"), recipe,
                                input_type=None if dtype == "fp32" else dtype, group_counts=groups,
                                tensor_amax=amax, scale_layout=layout)
    assert result.ok, str(result)
