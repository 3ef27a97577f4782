#!/usr/bin/env python3
"""The PyTorch peers of mxv's kernels, timed on the same GPU at the same shapes, in one table with
mxv's own figures (BENCHMARKS.md records the figures and how they are taken).

Each operation is written the way a PyTorch user would write it (elementwise ops, a bucketize for
the E2M1 rounding, a lookup table for decoding), once run eagerly and once through torch.compile.
The peers are timing references only: they are not bit-exact with mxv's recipes and are not used
to check anything.

Method: CUDA events around each call, the call queued behind a spinning kernel that holds the
stream (torch.cuda._sleep; --no-hold leaves it out), as mxv's benches do (device/bench/
bench_timing.h), so both sides are timed on the GPU's work and not on the host's launch latency;
warm-up calls first (torch.compile compiles there), the
median of --reps timed calls, inputs rotated over --sets buffer sets whose total exceeds the L2,
random non-zero inputs; the device-to-device copy bandwidth (bytes read + written) is measured in
the same run and every figure is also given as a fraction of it. Bytes counted per operation are
the ones mxv's benchmarks count: each input read once, each output written once.

mxv's figures come from the text output of its C++ benchmarks (device/bench), given with
--mxv-quantize FILE (quantize_bench) and --mxv-dequantize FILE (dequantize_bench); rows whose
mxv figure is found get the speed-up mxv / eager and mxv / torch.compile.

  python3 tools/gpu/torch_peers.py [--reps 50] [--sets 4] [--mxv-quantize q.txt] [--mxv-dequantize d.txt]
                                   [--no-hold]
"""
import argparse
import re
import statistics

import torch

E2M1_BOUNDS = torch.tensor([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0])
E2M1_VALUES = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                            -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


HOLD = True  # --no-hold turns it off
HOLD_CYCLES = 20_000_000  # about 10 ms at the H200's clock: more than an eager call's host work


def median_ms(fn, args_sets, reps):
    for i in range(3):
        fn(*args_sets[i % len(args_sets)])
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        args = args_sets[i % len(args_sets)]
        if HOLD:  # the stream held while the call's kernels are queued, as mxv's benches do
            torch.cuda._sleep(HOLD_CYCLES)
        a.record()
        fn(*args)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def e2m1_codes(y):
    """E2M1 codes (sign in bit 3) of fp32 values already scaled into [-6, 6]."""
    bounds = E2M1_BOUNDS.to(y.device)
    mag = torch.bucketize(y.abs(), bounds, right=False)
    return (mag | (torch.signbit(y).to(torch.int64) << 3)).to(torch.uint8)


def pack_nibbles(codes):
    return codes[..., 0::2] | (codes[..., 1::2] << 4)


def nvfp4_quantize(x):
    """bf16 [M, K] -> packed E2M1 [M, K/2], E4M3 block scales [M, K/16], fp32 decode scale."""
    m, k = x.shape
    amax = x.abs().amax().float()
    s_enc = 2688.0 / amax
    xb = x.float().view(m, k // 16, 16)
    block_amax = xb.abs().amax(-1, keepdim=True)
    sf = (block_amax * (s_enc / 6.0)).clamp(max=448.0).to(torch.float8_e4m3fn)
    mult = s_enc / sf.float()
    y = (xb * mult).clamp(-6.0, 6.0)
    return pack_nibbles(e2m1_codes(y).view(m, k)), sf.view(m, k // 16), 1.0 / s_enc


def swiglu_nvfp4(x):
    """bf16 [M, 2I] (gate | up halves) -> NVFP4 of silu(gate) * up."""
    gate, up = x.float().chunk(2, dim=-1)
    return nvfp4_quantize((torch.nn.functional.silu(gate) * up).to(torch.bfloat16))


def dequantize_kpacked(packed, scales, s_dec):
    """[E, N, K/2] packed along K, scales [E, N, K/16] -> bf16 [E, N, K]."""
    lut = E2M1_VALUES.to(packed.device)
    e, n, kh = packed.shape
    vals = torch.stack((lut[(packed & 0xF).long()], lut[(packed >> 4).long()]), dim=-1).view(e, n, 2 * kh)
    sf = scales.float().repeat_interleave(16, dim=-1)
    return (vals * sf * s_dec).to(torch.bfloat16)


def dequantize_npacked(packed, scales, s_dec):
    """[E, K, N/2] packed along N, scales [E, N, K/16] -> bf16 [E, N, K]."""
    lut = E2M1_VALUES.to(packed.device)
    e, k, nh = packed.shape
    vals = torch.stack((lut[(packed & 0xF).long()], lut[(packed >> 4).long()]), dim=-1).view(e, k, 2 * nh)
    sf = scales.float().repeat_interleave(16, dim=-1)
    return (vals.transpose(1, 2) * sf * s_dec).to(torch.bfloat16)


def parse_mxv(path, pattern):
    """Milliseconds of the first line of a benchmark's output matching `pattern` (a regex)."""
    if not path:
        return None
    with open(path) as f:
        for line in f:
            if re.search(pattern, line):
                m = re.search(r"([0-9.]+) ms", line) or re.search(r"\s([0-9]+\.[0-9]+)\s+[0-9]+\s+[0-9.]+%", line)
                if m:
                    return float(m.group(1))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--sets", type=int, default=4)
    ap.add_argument("--mxv-quantize")
    ap.add_argument("--mxv-dequantize")
    ap.add_argument("--no-hold", action="store_true",
                    help="do not hold the stream before each timed call, so the host's latency counts")
    args = ap.parse_args()
    global HOLD
    HOLD = not args.no_hold
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(20261201)

    big = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(big)
    copy_ms = median_ms(lambda: dst.copy_(big), [()], args.reps)
    copy_gbs = 2 * big.numel() / copy_ms / 1e6
    del big, dst
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}; copy 1 GiB: {copy_ms:.3f} ms "
          f"-> {copy_gbs:.0f} GB/s (read + write); medians of {args.reps}, {args.sets} rotating sets; "
          f"{'stream held before each call' if HOLD else 'no hold'}")

    def randn(*shape, dtype=torch.bfloat16):
        return torch.randn(*shape, generator=gen, device=dev, dtype=torch.float32).add_(0.01).to(dtype)

    def weights(e, n, k, npacked):
        shape = (e, k, n // 2) if npacked else (e, n, k // 2)
        packed = torch.randint(0, 256, shape, generator=gen, device=dev, dtype=torch.int32).to(torch.uint8)
        scales = (torch.rand(e, n, k // 16, generator=gen, device=dev) * 400 + 1).to(torch.float8_e4m3fn)
        return packed, scales, 0.0123

    rows = []

    def bench(name, fn, make, nbytes, mxv_ms):
        sets = [make() for _ in range(args.sets)]
        eager = median_ms(fn, sets, args.reps)
        compiled_fn = torch.compile(fn)
        comp = median_ms(compiled_fn, sets, args.reps)
        rows.append((name, nbytes, mxv_ms, eager, comp))
        del sets
        torch.cuda.empty_cache()

    m, k = 16384, 7168
    bench(f"nvfp4 quantize + amax, bf16 {m}x{k}", nvfp4_quantize, lambda: (randn(m, k),),
          m * k * 2 + m * k // 2 + m * k // 16,
          parse_mxv(args.mxv_quantize, r"amax\+quantize nvfp4_te bf16"))
    i = 2048
    bench(f"swiglu + nvfp4, bf16 {m}x2*{i}", swiglu_nvfp4, lambda: (randn(m, 2 * i),),
          m * 2 * i * 2 + m * i // 2 + m * i // 16,
          parse_mxv(args.mxv_quantize, r"swiglu_quantize_fused bf16 halves"))
    for (e, n, kk) in ((8, 2048, 4096), (32, 4096, 7168)):
        for npacked in (False, True):
            label = "N" if npacked else "K"
            fn = dequantize_npacked if npacked else dequantize_kpacked
            nbytes = e * n * kk // 2 + e * n * kk // 16 + e * n * kk * 2
            mxv_ms = parse_mxv(args.mxv_dequantize, rf"nvfp4_te\s+{label}\s+bf16\s+tiled\s+{e}x{n}x{kk}")
            bench(f"dequantize {label}-packed -> bf16 {e}x{n}x{kk}", fn,
                  lambda: weights(e, n, kk, npacked), nbytes, mxv_ms)

    print(f"\n{'operation':<44} {'mxv ms':>8} {'eager ms':>9} {'compile ms':>10} {'mxv/eager':>9} "
          f"{'mxv/compile':>11} {'mxv %copy':>9} {'compile %copy':>13}")
    for name, nbytes, mxv_ms, eager, comp in rows:
        frac = lambda ms: f"{100 * nbytes / ms / 1e6 / copy_gbs:.1f}%" if ms else "-"
        speed = lambda ms: f"{ms / mxv_ms:.1f}x" if mxv_ms else "-"
        print(f"{name:<44} {mxv_ms if mxv_ms else float('nan'):>8.3f} {eager:>9.3f} {comp:>10.3f} "
              f"{speed(eager):>9} {speed(comp):>11} {frac(mxv_ms):>9} {frac(comp):>13}")


if __name__ == "__main__":
    main()
