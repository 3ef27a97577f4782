"""The Python module reproduces the whole committed golden set (written by the C++ reference
through `mxv golden regen`) byte for byte: every case of codes.h5 (encode, decode), quantize.h5,
dequantize.h5 and swiglu.h5, read through mxv.golden (h5py underneath) and run by Case.run();
and mxv.golden's candidate writing."""

import numpy as np
import pytest

import mxv
from conftest import GOLDEN

h5py = pytest.importorskip("h5py")

FAMILIES = ("codes", "quantize", "dequantize", "swiglu")


def all_cases():
    out = []
    for family in FAMILIES:
        with mxv.golden.open(str(GOLDEN / f"{family}.h5")) as f:
            out += [(family, name) for name in f.cases()]
    return out


@pytest.mark.parametrize("family,name", all_cases())
def test_case_is_byte_equal(family, name):
    with mxv.golden.open(str(GOLDEN / f"{family}.h5")) as f:
        case = f.case(name)
        expected, actual = case.expected, case.run()
        # The same datasets, each with the same bytes (dtype and shape aside: swizzled scales are
        # a flat buffer in the file, bf16 is uint16 bits on both sides).
        assert sorted(actual) == sorted(expected)
        for key, value in expected.items():
            assert np.asarray(actual[key]).tobytes() == value.tobytes(), f"{name}: {key}"
        if case.op == "quantize":  # the reference's own outputs pass the check
            result = mxv.check_quantize(case.inputs["x"], expected["elements"], expected["scales"],
                                        expected.get("s_dec"), **case.kwargs())
            assert result.ok, str(result)


def test_the_packing_and_output_type_are_not_ignored():
    # A binding that read n-packed weights as k-packed, or rounded to another type, is caught by
    # the comparison above: both change the bytes of a committed case.
    with mxv.golden.open(str(GOLDEN / "dequantize.h5")) as f:
        name = next(n for n in f.cases() if ".n-packed." in n and n.endswith(".bf16"))
        case = f.case(name)
        x, expected, recipe = case.inputs, case.expected["out"].tobytes(), case.recipe
    s_dec = x.get("s_dec")
    assert mxv.dequantize_weights(x["packed"], x["scales"], s_dec, recipe, packing="n-packed",
                                  out_type="bf16").tobytes() == expected
    assert mxv.dequantize_weights(x["packed"], x["scales"], s_dec, recipe, packing="k-packed",
                                  out_type="bf16").tobytes() != expected
    assert mxv.dequantize_weights(x["packed"], x["scales"], s_dec, recipe, packing="n-packed",
                                  out_type="fp16").tobytes() != expected


def test_the_recipe_read_back_is_the_stored_one():
    with h5py.File(GOLDEN / "quantize.h5", "r") as raw, mxv.golden.open(str(GOLDEN / "quantize.h5")) as f:
        for name in f.cases()[:10]:
            attrs = raw["cases"][name].attrs
            fields = f.case(name).recipe.fields()
            assert fields["order"] == attrs["recipe.order"].decode()
            assert fields["tensor_amax"] == attrs["recipe.tensor_amax_policy"].decode()
            assert fields["block_size"] == int(attrs["recipe.block_size"])


def make_candidate(path):
    with h5py.File(path, "w") as f:
        f.attrs["schema"] = np.bytes_(b"mxv-golden")
        f.attrs["content"] = np.bytes_(b"candidate")
        out = f.create_group("cases/quantize.demo/outputs")
        f["cases/quantize.demo"].attrs["op"] = np.bytes_(b"quantize")
        out.create_dataset("elements", data=np.zeros((2, 8), np.uint8))


def test_write_outputs_checks_shape_and_dtype_then_writes(tmp_path):
    path = str(tmp_path / "candidate.h5")
    make_candidate(path)
    with mxv.golden.open(path, "r+") as f:
        case = f.case("quantize.demo")
        with pytest.raises(ValueError, match="uint8 \\(2, 8\\)"):
            case.write_outputs(elements=np.ones((2, 8), np.int32))
        with pytest.raises(ValueError, match="no output 'scales'"):
            case.write_outputs(scales=np.ones((2, 1), np.uint8))
        case.write_outputs(elements=np.full((2, 8), 7, np.uint8))
    with h5py.File(path, "r") as f:
        assert (f["cases/quantize.demo/outputs/elements"][...] == 7).all()


def test_a_file_that_is_not_golden_is_refused(tmp_path):
    path = str(tmp_path / "other.h5")
    with h5py.File(path, "w") as f:
        f.create_group("cases")
    with pytest.raises(ValueError, match="not an mxv golden file"):
        mxv.golden.open(path)
