"""The Python module reproduces the committed golden set (written by the C++ reference through
`mxv golden regen`) byte for byte: every quantize case of golden/quantize.h5, read through
mxv.golden (h5py underneath); and mxv.golden's candidate writing."""

import numpy as np
import pytest

import mxv
from conftest import GOLDEN

h5py = pytest.importorskip("h5py")



def quantize_cases():
    with mxv.golden.open(str(GOLDEN / "quantize.h5")) as f:
        return f.cases()


@pytest.mark.parametrize("name", quantize_cases())
def test_quantize_case_is_byte_equal(name):
    with mxv.golden.open(str(GOLDEN / "quantize.h5")) as f:
        case = f.case(name)
        x, expected, kwargs = case.inputs["x"], case.expected, case.kwargs()
    q = mxv.quantize(x, **kwargs)
    assert q.elements.tobytes() == expected["elements"].tobytes()
    assert q.scales.tobytes() == expected["scales"].tobytes()
    if "s_dec" in expected:
        assert q.global_scale.tobytes() == expected["s_dec"].tobytes()
        assert q.amax.tobytes() == expected["amax"].tobytes()
    # The reference's own outputs pass the check.
    result = mxv.check_quantize(x, expected["elements"], expected["scales"], expected.get("s_dec"), **kwargs)
    assert result.ok, str(result)


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
