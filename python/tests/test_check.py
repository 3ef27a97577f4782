"""mxv.check / mxv.check_quantize / mxv.testing on a plain numpy NVFP4 quantizer (TE operation
order, docs/semantics.md): written correctly it matches the reference byte for byte; each
planted bug produces the report class that names it, and only that class."""

import numpy as np
import pytest

import mxv
from mxv.testing import assert_byte_exact, assert_quantize_equal

E2M1_VALUES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], np.float32)
E4M3_VALUES = np.array([(m / 8) * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
                        for e in range(16) for m in range(8)][:127], np.float32)  # 0x7F is NaN


def round_to_table(table, magnitudes, ties_to_even=True):
    """Index of the nearest table value (table sorted, magnitudes within it); ties go to the even
    index, or to the lower one when ties_to_even is False."""
    lo = np.clip(np.searchsorted(table, magnitudes, side="right") - 1, 0, len(table) - 1)
    hi = np.minimum(lo + 1, len(table) - 1)
    d_lo, d_hi = magnitudes - table[lo], table[hi] - magnitudes
    tie_up = (hi % 2 == 0) if ties_to_even else np.zeros_like(lo, dtype=bool)
    return np.where((d_hi < d_lo) | ((d_hi == d_lo) & tie_up), hi, lo)


def numpy_nvfp4(x, tensor_amax=None, bug=None):
    """NVFP4, TE order, whole 16-element blocks, linear scales. ``bug`` plants one mistake."""
    rows, cols = x.shape
    f32 = np.float32
    amax = f32(np.max(np.abs(x))) if tensor_amax is None else f32(tensor_amax)
    s_enc = f32(2688.0) / amax
    s_dec = f32(1.0) / s_enc
    blocks = x.reshape(rows, cols // 16, 16)
    scale_in = np.max(np.abs(blocks), axis=2) * (s_enc * f32(1.0 / 6.0))
    sf_code = round_to_table(E4M3_VALUES, np.minimum(scale_in, f32(448.0))).astype(np.uint8)
    if bug == "scale_code_plus_one":
        sf_code[0, 0] += 1
    sf = E4M3_VALUES[sf_code]
    with np.errstate(divide="ignore"):
        factor = np.minimum(f32(1.0) / (sf * s_dec), f32(np.finfo(np.float32).max))
    v = (blocks * factor[:, :, None]).reshape(rows, cols)
    mag = round_to_table(E2M1_VALUES, np.minimum(np.abs(v), f32(6.0)), ties_to_even=(bug != "ties_down"))
    negative = (np.sign(v) < 0) if bug == "np_sign" else np.signbit(v)
    codes = mag.astype(np.uint8) | (negative.astype(np.uint8) << 3)
    lo, hi = codes[:, 0::2], codes[:, 1::2]
    packed = (hi | (lo << 4)) if bug == "nibbles_swapped" else (lo | (hi << 4))
    return packed.astype(np.uint8), sf_code, np.array([s_dec], np.float32)


def planted_inputs():
    """tensor_amax 2688 makes s_enc = s_dec = 1 and, with a 6 in every block, the element
    multiplier exactly 1: the E2M1 midpoints below are exact ties. Then -0.0 (sign) and seeded
    random blocks."""
    ties = np.array([6.0, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -0.25, -2.5, -5.0, 1.0, 2.0, 0.0, -0.0, -3.0],
                    np.float32)
    rng = np.random.default_rng(1402)  # replay: this seed
    rand = (rng.standard_normal((3, 16)) * 2).astype(np.float32)
    rand[:, 0] = 6.0
    return np.vstack([ties, rand]).astype(np.float32)


def check(bug):
    x = planted_inputs()
    elements, scales, s_dec = numpy_nvfp4(x, tensor_amax=2688.0, bug=bug)
    return mxv.check_quantize(x, elements, scales, s_dec, "nvfp4_te", tensor_amax=2688.0)


def nonzero(report):
    return {k: v for k, v in report.counts.items() if v}


def test_the_correct_numpy_quantizer_matches_the_reference():
    result = check(None)
    assert result.ok, str(result)
    assert_quantize_equal(planted_inputs(), *numpy_nvfp4(planted_inputs(), tensor_amax=2688.0), recipe="nvfp4_te",
                          tensor_amax=2688.0)


def test_random_data_without_a_calibrated_amax_also_matches():
    seed = 1403
    x = (np.random.default_rng(seed).standard_normal((8, 64)) * 4).astype(np.float32)
    assert_quantize_equal(x, *numpy_nvfp4(x), recipe="nvfp4_te")


@pytest.mark.parametrize("bug,report,cls", [
    ("ties_down", "elements", "tie-flip"),
    ("np_sign", "elements", "sign-of-zero"),
    ("nibbles_swapped", "elements", "nibble-swap"),
    ("scale_code_plus_one", "scales", "scale-off-codes"),
])
def test_each_planted_bug_is_reported_as_its_class(bug, report, cls):
    result = check(bug)
    assert not result.ok
    r = result[report]
    assert set(nonzero(r)) == {cls}, str(r)
    assert r.listed and r.listed[0].cls == cls
    assert cls in str(result)
    if bug == "ties_down":  # 0.25 -> 0 is right; 0.75 -> 0.5 instead of 1.0 at row 0, col 2
        m = next(m for m in r.listed if m.coord[2] == 2)
        assert (m.coord[1], m.expected, m.actual, m.pre_rounding) == (0, 0x2, 0x1, 0.75)
        assert m.input_bits == np.float32(0.75).view(np.uint32)


def test_assert_quantize_equal_fails_with_the_report():
    x = planted_inputs()
    elements, scales, s_dec = numpy_nvfp4(x, tensor_amax=2688.0, bug="np_sign")
    with pytest.raises(AssertionError) as failure:
        assert_quantize_equal(x, elements, scales, s_dec, recipe="nvfp4_te", tensor_amax=2688.0)
    message = str(failure.value)
    assert "sign-of-zero" in message and "row 0, col 14" in message


def test_generic_check_finds_never_written_slots_and_formats_the_report():
    expected = np.arange(32, dtype=np.uint8).reshape(4, 8)
    actual = expected.copy()
    actual[2, 5] = 0xA5
    report = mxv.check(expected, actual, "e4m3", sentinel=0xA5, name="codes")
    assert not report.ok and report.counts["never-written"] == 1
    assert report.listed[0].coord == (0, 2, 5)
    assert report.listed[0].region == "data"
    assert str(report) == report.text() and "codes" in str(report)
    assert mxv.check(expected, expected, "e4m3").ok
    with pytest.raises(AssertionError, match="never-written"):
        assert_byte_exact(expected, actual, "e4m3", sentinel=0xA5)
    with pytest.raises(ValueError):
        mxv.check(expected, actual[:2], "e4m3")
