"""mxv.encode / mxv.decode: known codes, round trips over every code, every mode and dialect
reachable from Python, and errors as ValueError."""

import itertools

import numpy as np
import pytest

import mxv


def test_known_e4m3_codes():
    x = np.array([1.0, -1.0, 448.0, 500.0, 0.0, -0.0, 2.0**-9], np.float32)
    assert mxv.encode(x, "e4m3").tolist() == [0x38, 0xB8, 0x7E, 0x7E, 0x00, 0x80, 0x01]
    assert mxv.encode(np.array([500.0], np.float32), "e4m3", saturation="none").tolist() == [0x7F]


def test_known_e2m1_codes_round_half_to_even():
    x = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0, -0.25], np.float32)
    assert mxv.encode(x, "e2m1").tolist() == [0x0, 0x2, 0x2, 0x4, 0x4, 0x6, 0x6, 0x7, 0x8]


@pytest.mark.parametrize("fmt,count", [("e2m1", 16), ("e4m3", 256), ("ue4m3", 128), ("e8m0", 256)])
def test_decode_then_encode_returns_every_non_nan_code(fmt, count):
    codes = np.arange(count, dtype=np.uint8)
    values = mxv.decode(codes, fmt)
    keep = ~np.isnan(values)
    mode = {"rounding": "toward-zero"} if fmt == "e8m0" else {}
    assert np.array_equal(mxv.encode(values[keep], fmt, **mode), codes[keep])


def test_shape_is_kept():
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)
    assert mxv.encode(x, "e4m3").shape == (2, 3, 4)
    assert mxv.decode(mxv.encode(x, "e4m3"), "e4m3").shape == (2, 3, 4)


def test_bf16_and_fp16_inputs_are_widened_exactly():
    x = np.array([1.5, -0.3, 100.0], np.float32)
    bf16_bits = (x.view(np.uint32) >> 16).astype(np.uint16)  # truncated: valid bf16 values
    widened = (bf16_bits.astype(np.uint32) << 16).view(np.float32)
    assert np.array_equal(mxv.encode(bf16_bits, "e4m3", input_type="bf16"), mxv.encode(widened, "e4m3"))
    h = x.astype(np.float16)
    assert np.array_equal(mxv.encode(h, "e4m3"), mxv.encode(h.astype(np.float32), "e4m3"))


def test_every_mode_and_dialect_either_encodes_or_raises_value_error():
    x = np.array([0.1, 1.0, 3.0, 1e30, np.inf, np.nan, -2.0], np.float32)
    for fmt, rnd, sat, dia in itertools.product(mxv.FORMATS, mxv.ROUNDINGS, mxv.SATURATIONS, mxv.DIALECTS):
        try:
            codes = mxv.encode(x, fmt, rounding=rnd, saturation=sat, dialect=dia)
        except ValueError as e:
            assert fmt in str(e) or rnd in str(e) or sat in str(e) or dia in str(e), str(e)
            continue
        assert codes.dtype == np.uint8 and codes.shape == x.shape


def test_ml_dtypes_dialect_agrees_with_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    seed = 14
    x = np.random.default_rng(seed).standard_normal(4096).astype(np.float32) * 50  # replay: seed above
    ours = mxv.encode(x, "e4m3", saturation="none", dialect="ml_dtypes")
    theirs = x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    assert np.array_equal(ours, theirs), f"seed {seed}"


def test_bad_input_raises_value_error_with_the_cpp_message():
    with pytest.raises(ValueError, match="e9m9"):
        mxv.encode(np.ones(2, np.float32), "e9m9")
    with pytest.raises(ValueError, match="float64"):
        mxv.encode(np.ones(2), "e4m3")
    with pytest.raises(ValueError):
        mxv.decode(np.array([0x10], np.uint8), "e2m1")


def test_pack_and_unpack_e2m1():
    nibbles = np.array([[1, 2, 3], [15, 0, 7]], np.uint8)
    packed = mxv.pack_e2m1(nibbles)
    assert packed.tolist() == [[0x21, 0x03], [0x0F, 0x07]]
    assert np.array_equal(mxv.unpack_e2m1(packed, 3), nibbles)
