"""Adversarial inputs for the library captures (docs/conformance.md, "Inputs").

Every case is a float32 array [rows, K] built deterministically (a fixed numpy seed for the one
random case), aimed at the places where quantizers that agree on ordinary data part ways:

  random          ordinary data: any disagreement here is a gross one
  ties            elements that land on E2M1 midpoints after scaling (and their fp32 neighbours)
  scale_edges     block amax whose scale input sits on a scale-format rounding boundary +- ulps
  pow2_ulps       block amax a few ulps above / below a power of two and 6 * 2^k (MX rules)
  tiny_blocks     tiny and fp32-subnormal blocks inside a tensor with an ordinary max
  specials        blocks holding Inf, -Inf, NaN, zeros and -0 next to ordinary blocks
  zero_tensor     every element 0 (the tensor scale is 0 / 0)
  tiny_tensor     tensor max below 7.9e-36 (1/(amax/2688) overflows fp32) and subnormal
  huge            amax near FLT_MAX
  partial_k       K = 40: not a multiple of 16 or 32

A case is independent of the library: the capture scripts pick the cases each function accepts.
Only numpy and ml_dtypes are needed (no torch), so the inputs can be rebuilt anywhere.
"""

import ml_dtypes
import numpy as np

F32 = np.float32
E2M1_MIDPOINTS = (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0)


def _f32(v):
    return np.asarray(v, dtype=F32)


def _next(v, n):
    """The float32 n ulps from v (n may be negative)."""
    v = _f32(v)
    direction = F32(np.inf) if n > 0 else F32(-np.inf)
    for _ in range(abs(n)):
        v = np.nextafter(v, direction)
    return v


def _rows(values, k):
    """Pads a flat list of float32 values with zeros to whole rows of k."""
    flat = np.asarray(values, dtype=F32).ravel()
    rows = -(-flat.size // k)
    out = np.zeros(rows * k, dtype=F32)
    out[: flat.size] = flat
    return out.reshape(rows, k)


def random(k=64, rows=8):
    rng = np.random.default_rng(20261201)
    return (rng.standard_normal((rows, k)) * 3.0).astype(F32)


def ties(block, tensor_maxes, k=64):
    """Blocks whose elements sit on E2M1 midpoints after scaling, and their fp32 neighbours.
    NVFP4 (block 16): for a tensor max T, pts = T/2688 and the block's UE4M3 scale sf, the unit
    the libraries divide by (or multiply by the reciprocal of) is pts * sf; MX (block 32): the OCP
    unit 2^(floor(log2 amax) - 2). Each block starts with its amax, then m * unit, the two fp32
    neighbours and -m * unit for the midpoints m, spread over as many blocks as needed."""
    values = []
    for tensor_max in tensor_maxes:
        pts = F32(tensor_max) / F32(2688.0)
        for fraction in (1.0, 0.78125, 0.5, 0.2833, 0.15):
            amax = F32(F32(fraction) * F32(tensor_max))
            if block == 16:
                sf = ml_dtypes.float8_e4m3fn(F32(amax / F32(6.0)) / pts).astype(F32)
                unit = F32(pts * sf)
            else:
                unit = F32(2.0) ** F32(np.floor(np.log2(amax)) - 2)
            elems = []
            for m in E2M1_MIDPOINTS:
                x = F32(F32(m) * unit)
                if x <= amax:
                    elems += [x, _next(x, 1), _next(x, -1), -x]
            per = block - 1
            for i in range(0, len(elems), per):
                values += ([amax] + elems[i:i + per] + [0.0] * block)[:block]
        values += [tensor_max] + [0.0] * (block - 1)  # pins the tensor max
    return _rows(values, k)


def scale_edges(block, k=64):
    """Block amax around UE4M3 (NVFP4) rounding midpoints of amax/6/pts, tensor max 2688 so that
    pts = 1: the scale input is amax/6. Midpoints between UE4M3 neighbours c and c+1, +- 1 ulp."""
    values = []
    codes = (0x01, 0x07, 0x08, 0x0F, 0x30, 0x37, 0x38, 0x5A, 0x77, 0x7D)
    for c in codes:
        lo = np.array([c], dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(F32)[0]
        hi = np.array([c + 1], dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(F32)[0]
        mid = F32((np.float64(lo) + np.float64(hi)) / 2.0)
        for n in (-1, 0, 1):
            amax = F32(_next(mid, n) * F32(6.0))
            blockv = [amax, amax / F32(3.0), -amax / F32(7.0), amax * F32(0.75)]
            values += (blockv + [0.0] * block)[:block]
    values += [2688.0] + [0.0] * (block - 1)
    return _rows(values, k)


def pow2_ulps(block, k=64):
    """MX: block amax 2^e (1 + n ulp) and 6 * 2^e (1 + n ulp) for n in -1..5, and 1.75 * 2^e +-
    ulps (torchao EVEN rounds the amax at that bit), each block also holding amax/3 and -amax/5."""
    values = []
    for e in (-3, 40):
        for base in (1.0, 6.0, 1.75, 1.5):
            for n in (-1, 0, 1, 2, 5):
                amax = _next(F32(base) * F32(2.0) ** e, n)
                values += ([amax, amax / F32(3.0), -amax / F32(5.0)] + [0.0] * block)[:block]
    return _rows(values, k)


def tiny_blocks(block, k=64):
    """Blocks with tiny amax (fp32 normal and subnormal) next to an ordinary block of max 100, so
    that NVFP4 block scales underflow and MX scales reach the bottom of E8M0."""
    values = [100.0, -37.5, 3.0] + [0.0] * (block - 3)
    for amax in (1e-3, 1.58e-3, 1e-4, 2e-5, 1e-6, 1e-8, 2.0**-126, 6 * 2.0**-127, 5e-39, 1e-40,
                 1.4e-45, 2.0**-120, 2.0**-125):
        a = F32(amax)
        values += ([a, a / F32(2.0), -a / F32(3.0), a * F32(0.75), F32(0.00158) * (a > 1e-3)]
                   + [0.0] * block)[:block]
    return _rows(values, k)


def specials(block, k=64):
    """Blocks with Inf, -Inf, NaN (both signs, with payloads), all zeros and -0, each next to
    ordinary elements, and one ordinary block."""
    nan_payload = np.array([0x7FC00001], dtype=np.uint32).view(F32)[0]
    neg_nan = np.array([0xFFC00000], dtype=np.uint32).view(F32)[0]
    blocks = [
        [1.0, 2.5, -3.0, 0.1],
        [np.inf, 1.0, -2.0, 0.5],
        [-np.inf, 1.0, -2.0, 0.5],
        [np.nan, 1.0, -2.0, 0.5],
        [neg_nan, 1.0, -2.0, 0.5],
        [nan_payload, 4.0, -0.25, 0.0],
        [0.0, 0.0, 0.0, 0.0],
        [-0.0, -0.0, 0.0, -0.0],
        [np.inf, np.nan, -np.inf, 0.0],
    ]
    values = []
    for b in blocks:
        values += (list(b) + [0.0] * block)[:block]
    return _rows(values, k)


def finite_specials(block, k=64):
    """specials without Inf/NaN (for NVFP4, where one Inf or NaN makes the tensor scale
    non-finite and every block meaningless): zero blocks and -0 blocks next to ordinary ones."""
    blocks = [[1.0, 2.5, -3.0, 0.1], [0.0] * 4, [-0.0, -0.0, 0.0, -0.0], [-1e-3, 0.0, 5.0, -5.0]]
    values = []
    for b in blocks:
        values += (list(b) + [0.0] * block)[:block]
    return _rows(values, k)


def nan_block(block, k=64):
    values = [1.0, 2.5, -3.0, 0.1] + [0.0] * (block - 4) + [np.nan, 1.0] + [0.0] * (block - 2)
    return _rows(values, k)


def inf_block(block, k=64):
    values = [1.0, 2.5, -3.0, 0.1] + [0.0] * (block - 4) + [np.inf, -1.0] + [0.0] * (block - 2)
    return _rows(values, k)


def zero_tensor(k=64, rows=2):
    return np.zeros((rows, k), dtype=F32)


def tiny_tensor(scale, k=64):
    """Tensor whose max is `scale`: below 7.9e-36, 1/(amax/2688) overflows fp32."""
    base = random(k, 2)
    base = base / np.abs(base).max()
    return (base.astype(np.float64) * scale).astype(F32)


def huge(block, k=64):
    big = np.finfo(F32).max
    values = [big, -big / F32(3.0), F32(1e30)] + [0.0] * (block - 3)
    values += [F32(3e38), F32(-1e38), F32(2.0) ** 127] + [0.0] * (block - 3)
    return _rows(values, k)


def partial_k():
    return random(40, 4)


def nvfp4_cases():
    """Cases for NVFP4 quantizers (block 16, one tensor scale per case)."""
    return {
        "random": random(),
        "ties_t2688": ties(16, (2688.0,)),
        "ties_t1000": ties(16, (1000.0,)),
        "ties_t28": ties(16, (28.125,)),
        "ties_t37": ties(16, (37.0,)),
        "scale_edges": scale_edges(16),
        "tiny_blocks": tiny_blocks(16),
        "finite_specials": finite_specials(16),
        "nan_block": nan_block(16),
        "inf_block": inf_block(16),
        "zero_tensor": zero_tensor(),
        "tiny_tensor_1e-36": tiny_tensor(1e-36),
        "tiny_tensor_1e-30": tiny_tensor(1e-30),
        "tiny_tensor_subnormal": tiny_tensor(1e-41),
        "partial_k": partial_k(),
    }


def mx_cases():
    """Cases for MX quantizers (block 32; blocks are independent, so one tensor holds many)."""
    return {
        "random": random(),
        "ties": ties(32, (2688.0, 1000.0, 28.125, 37.0)),
        "pow2_ulps": pow2_ulps(32),
        "tiny_blocks": tiny_blocks(32),
        "specials": specials(32),
        "huge": huge(32),
        "zero_tensor": zero_tensor(),
        "partial_k": partial_k(),
    }
