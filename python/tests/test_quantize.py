"""mxv.quantize / dequantize / swiglu_quantize / scale layouts, checked against decoding by hand
(decode_by_hand below: the E2M1 table, ml_dtypes' E4M3 and the E8M0 power of two, none of them
mxv's decode) and against each other."""

import numpy as np
import pytest

import mxv

SEED = 1401  # every random input below comes from this seed

E2M1_MAGNITUDES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], np.float32)  # OCP MX v1.0, table 5


def decode_by_hand(codes, fmt):
    """fp32 values of `codes` (one per byte) in format `fmt`, without mxv."""
    codes = np.asarray(codes, np.uint8)
    if fmt == "e2m1":
        magnitude = E2M1_MAGNITUDES[codes & 0x7]
        return np.where(codes & 0x8, -magnitude, magnitude).astype(np.float32)
    if fmt in ("e4m3", "ue4m3"):
        ml_dtypes = pytest.importorskip("ml_dtypes")
        assert fmt == "e4m3" or (codes < 0x80).all(), "UE4M3 codes have no sign bit"
        return codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    if fmt == "e8m0":
        powers = np.ldexp(np.float32(1.0), np.minimum(codes, 0xFE).astype(np.int32) - 127).astype(np.float32)
        return np.where(codes == 0xFF, np.float32(np.nan), powers)
    raise AssertionError(f"no hand decoder for {fmt}")


def inputs(rows, cols, seed=SEED):
    return (np.random.default_rng(seed).standard_normal((rows, cols)) * 3).astype(np.float32)


@pytest.mark.parametrize("fmt,count", [("e2m1", 16), ("e4m3", 256), ("ue4m3", 128), ("e8m0", 256)])
def test_decode_agrees_with_decoding_by_hand_on_every_code(fmt, count):
    codes = np.arange(count, dtype=np.uint8)
    assert np.array_equal(mxv.decode(codes, fmt), decode_by_hand(codes, fmt), equal_nan=True)


@pytest.mark.parametrize("name", mxv.preset_names())
def test_every_preset_quantizes_and_dequantizes_by_hand(name):
    x = inputs(5, 64)
    q = mxv.quantize(x, name)
    r = mxv.Recipe(name)
    fmt = r.element
    codes = mxv.unpack_e2m1(q.elements, 64) if r.element_bits == 4 else q.elements
    elems = decode_by_hand(codes, fmt)
    if r.e8m0_decode == "ort_qmoe":
        pytest.skip("ort_qmoe decodes E8M0 0x00 / 0xFF its own way (checked by the C++ tests)")
    scale_format = "e4m3" if r.scale_decode == "signed_e4m3" else r.scale
    scales = np.repeat(decode_by_hand(q.scale_codes, scale_format), r.block_size, axis=1)[:, :64]
    gs = q.global_scale[0]
    if r.dequant_order == "elem_times_scale_product":
        by_hand = elems * (scales * gs)
    else:
        by_hand = (elems * scales) * gs
    assert np.array_equal(q.dequantize(), by_hand.astype(np.float32)), f"seed {SEED}"


def test_swizzled_scales_are_the_linear_ones_rearranged():
    x = inputs(130, 48)
    lin = mxv.quantize(x, "nvfp4_te")
    swz = mxv.quantize(x, "nvfp4_te", scale_layout="swizzled128x4")
    assert np.array_equal(lin.elements, swz.elements)
    assert swz.scales.size == mxv.scale_buffer_size("swizzled128x4", 130, 3) == 2 * 128 * 4
    assert np.array_equal(mxv.gather_scales(swz.scales, "swizzled128x4", 130, 3), lin.scales)
    assert np.array_equal(mxv.arrange_scales(lin.scales, "swizzled128x4"), swz.scales)


def test_grouped_rows_and_a_calibrated_amax():
    x = inputs(10, 32)
    q = mxv.quantize(x, "nvfp4_te", group_counts=[3, 0, 7], scale_per_group=True, scale_layout="swizzled128x4")
    assert q.global_scale.shape == (3,)
    assert q.scales.size == mxv.scale_buffer_size("swizzled128x4", 10, 2, group_counts=[3, 0, 7])
    fixed = mxv.quantize(x, "nvfp4_te", tensor_amax=2688.0)
    assert fixed.global_scale.tolist() == [1.0]


def test_inputs_as_bf16_bits_and_torch_tensors():
    x = inputs(4, 32)
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)
    widened = (bits.astype(np.uint32) << 16).view(np.float32)
    a = mxv.quantize(bits, "mxfp8_ocp", input_type="bf16")
    b = mxv.quantize(widened, "mxfp8_ocp")
    assert np.array_equal(a.elements, b.elements) and np.array_equal(a.scales, b.scales)
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(widened).to(torch.bfloat16)
    c = mxv.quantize(t, "mxfp8_ocp")
    assert np.array_equal(c.elements, b.elements)


class DLPackOnly:
    """A tensor that offers DLPack and nothing else (no __array__), like a JAX or CuPy array;
    ``device`` is the DLPack device it claims."""

    def __init__(self, array, device=(1, 0)):
        self._array, self._device = array, device

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._device


def test_dlpack_inputs_on_the_cpu_and_refused_elsewhere():
    x = inputs(4, 32)
    q = mxv.quantize(DLPackOnly(x), "nvfp4_te")
    assert q.elements.tobytes() == mxv.quantize(x, "nvfp4_te").elements.tobytes()
    with pytest.raises(ValueError, match="device type 2 .*copy it to the CPU"):
        mxv.quantize(DLPackOnly(x, device=(2, 0)), "nvfp4_te")  # kDLCUDA


def test_swiglu_quantize_fused_bf16_intermediate_equals_unfused():
    gate_up = inputs(6, 64)
    r = mxv.Recipe("nvfp4_te", intermediate="bf16", activation="silu")
    fused = mxv.swiglu_quantize(gate_up, r, fused=True)
    unfused = mxv.swiglu_quantize(gate_up, r, fused=False)
    assert fused.activated.shape == (6, 32)
    assert np.array_equal(fused.elements, unfused.elements)
    assert np.array_equal(fused.scales, unfused.scales)


def test_bad_shapes_raise_value_error():
    with pytest.raises(ValueError):
        mxv.quantize(inputs(4, 32), "nvfp4_te", group_counts=[1, 1])
    with pytest.raises(ValueError, match="2\\*I"):
        mxv.swiglu_quantize(inputs(2, 33))
    with pytest.raises(ValueError):
        mxv.quantize(inputs(4, 32), "nvfp4_te", scale_layout="diagonal")


@pytest.mark.parametrize("name", ["nvfp4_te", "mxfp4_ocp"])
def test_dequantize_weights_by_hand_in_both_packings(name):
    rng = np.random.default_rng(SEED)
    r = mxv.Recipe(name)
    experts, n, k = 2, 6, 64
    nibbles = rng.integers(0, 16, (experts, n, k), dtype=np.uint8)
    scale_format = "ue4m3" if r.is_nvfp4 else "e8m0"
    scales = rng.integers(1, 0x7F if r.is_nvfp4 else 0x90, (experts, n, k // r.block_size), dtype=np.uint8)
    s_dec = np.array([0.5, 3.0], np.float32)
    by_hand = decode_by_hand(nibbles, "e2m1") * np.repeat(decode_by_hand(scales, scale_format), r.block_size, axis=2)
    if r.is_nvfp4:
        by_hand = by_hand * s_dec[:, None, None]
    k_packed = mxv.pack_e2m1(nibbles)                               # [E, N, K/2]
    n_packed = mxv.pack_e2m1(nibbles.transpose(0, 2, 1))            # [E, K, N/2]
    for packed, packing in ((k_packed, "k-packed"), (n_packed, "n-packed")):
        out = mxv.dequantize_weights(packed, scales, s_dec, r, packing=packing)
        assert out.dtype == np.float32 and out.shape == (experts, n, k)
        assert out.tobytes() == by_hand.astype(np.float32).tobytes()
    one = mxv.dequantize_weights(k_packed[1], scales[1], s_dec[1:], r, out_type="fp16")
    assert one.shape == (n, k) and one.tobytes() == by_hand[1].astype(np.float16).tobytes()


def test_dequantize_weights_errors_are_value_errors():
    packed, scales = np.zeros((1, 4, 16), np.uint8), np.zeros((1, 4, 2), np.uint8)
    with pytest.raises(ValueError, match="packing"):
        mxv.dequantize_weights(packed, scales, [1.0], "nvfp4_te", packing="m-packed")
    with pytest.raises(ValueError, match="s_dec"):
        mxv.dequantize_weights(packed, scales, None, "nvfp4_te")
    with pytest.raises(ValueError, match="3-D"):
        mxv.dequantize_weights(packed.reshape(-1), scales, [1.0], "nvfp4_te")
    with pytest.raises(ValueError):
        mxv.dequantize_weights(packed, scales[:, :, :1], [1.0], "nvfp4_te")
