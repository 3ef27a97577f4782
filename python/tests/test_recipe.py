"""mxv.Recipe: presets by name, fields as in C++, printable, comparable, overridable, validated."""

import copy

import pytest

import mxv


@pytest.mark.parametrize("name", mxv.preset_names() + mxv.library_preset_names())
def test_every_preset_constructs_prints_and_compares(name):
    r = mxv.Recipe(name)
    assert r.name == name
    assert str(r).startswith(name + ":")
    assert r == mxv.Recipe(name)
    assert r == copy.deepcopy(r)
    r.validate()


def test_presets_differ_and_fields_read_as_strings():
    te, trt = mxv.Recipe("nvfp4_te"), mxv.Recipe("nvfp4_trtllm")
    assert te != trt
    assert te.order == "te" and trt.order == "trtllm" and trt.reciprocal == "rcp_approx_table"
    assert te.block_size == 16 and te.element == "e2m1" and te.scale == "ue4m3"
    assert mxv.Recipe("mxfp8_ocp").fields()["scale_rule"] == "ocp_floor"


def test_overrides_in_the_constructor_and_by_assignment():
    r = mxv.Recipe("nvfp4_te", order="cutlass_ref", zero_block="scale_one")
    assert r.order == "cutlass_ref" and r.zero_block == "scale_one"
    assert r != mxv.Recipe("nvfp4_te")
    r.order = "te"
    r.zero_block = "code_zero"
    assert r == mxv.Recipe("nvfp4_te")


def test_bad_names_values_and_combinations_raise_value_error():
    with pytest.raises(ValueError, match="valid presets"):
        mxv.Recipe("nvfp5")
    with pytest.raises(ValueError, match="trtllm"):
        mxv.Recipe("nvfp4_te", order="nope")
    with pytest.raises(ValueError, match="no field"):
        mxv.Recipe("nvfp4_te", colour="red")
    bad = mxv.Recipe("mxfp4_ocp", block_size=0)
    with pytest.raises(ValueError):
        bad.validate()


def test_library_presets_are_distinct_recipes():
    names = mxv.library_preset_names()
    assert "nvfp4_torchao@0.16" in names
    assert mxv.Recipe("nvfp4_torchao@0.16") != mxv.Recipe("nvfp4_torchao@0.18")
