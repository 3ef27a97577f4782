#!/usr/bin/env python3
"""Runs the installed torchao on the adversarial inputs (inputs.py) and writes a capture
(capture_file.py) to golden/libraries/torchao-<version>.h5. docs/conformance.md says how to set up
the environment and which mxv preset reproduces each group.

  python tools/conformance/capture_torchao.py [--out DIR] [--device cpu|cuda]

Functions captured (torchao.prototype.mx_formats), NVFP4 on fp32 inputs and again on the same
inputs rounded to bf16 (groups nvfp4_<mode>_bf16; the input dataset holds the bf16 values widened):
  nvfp4_two_level  NVFP4Tensor.to_nvfp4(x, block_size=16,
                       per_tensor_scale=per_tensor_amax_to_scale(torch.max(torch.abs(x))))
                   and .dequantize(torch.float32)
  nvfp4_one_level  NVFP4Tensor.to_nvfp4(x, block_size=16) (no per-tensor scale)
  mx<fp4|fp8>_<mode>  MXTensor.to_mx(x, float4_e2m1fn_x2 | float8_e4m3fn, 32,
                       ScaleCalculationMode.<FLOOR|CEIL|EVEN|RCEIL>) and .dequantize(torch.float32)
"""

import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inputs  # noqa: E402
from capture_file import NVFP4_UNCLAIMED, CaptureFile, bf16_inputs, capture_path, parse_args  # noqa: E402

warnings.filterwarnings("ignore")

import torchao  # noqa: E402
from torchao.prototype.mx_formats.config import ScaleCalculationMode  # noqa: E402
from torchao.prototype.mx_formats.mx_tensor import MXTensor  # noqa: E402
from torchao.prototype.mx_formats.nvfp4_tensor import NVFP4Tensor, per_tensor_amax_to_scale  # noqa: E402


def minor(version):
    return ".".join(version.split(".")[:2])


def nvfp4_presets(version, dtype):
    """The mxv preset claimed for each NVFP4 mode of this torchao version on inputs of `dtype`
    ("" = none). Quantize widens bf16 to fp32 first; releases up to 0.17 take the two-level
    dequantize's scale product in bf16 (nvfp4_torchao_bf16@X), 0.18 in fp32. One-level: 0.16 and
    0.17 divide by the block scale, 0.18 multiplies by its reciprocal."""
    v = minor(version)
    if v not in ("0.16", "0.17", "0.18"):
        return {"two_level": "", "one_level": ""}
    bf16_product = dtype == torch.bfloat16 and v != "0.18"
    return {"two_level": f"nvfp4_torchao_bf16@{v}" if bf16_product else f"nvfp4_torchao@{v}",
            "one_level": "nvfp4_torchao_one_level@0.18" if v == "0.18" else "nvfp4_torchao_one_level@0.17"}


# One-level NVFP4 keeps a NaN inside its block, but the block's codes still follow the NaN's bits
# (custom_fp_utils), and which NaN x / NaN or x * (1 / NaN) passes on differs between torch's
# vectorised and scalar-tail loops: measured, element 16 of the NaN block gets 0x4 from mxv's
# model and 0x3 (fp32) / 0xC (bf16) from torchao.
ONE_LEVEL_UNCLAIMED = {
    "nan_block": "the NaN block's E2M1 codes depend on the NaN bits torch's vectorised and scalar-tail "
                 "division / multiplication loops pass on (custom_fp_utils computes a NaN's code from its "
                 "bits); not modelled",
}

MX_MODES = {
    "floor": ScaleCalculationMode.FLOOR,
    "ceil": ScaleCalculationMode.CEIL,
    "even": ScaleCalculationMode.EVEN,
    "rceil": ScaleCalculationMode.RCEIL,
}


def u8(t):
    return t.contiguous().view(torch.uint8).cpu().numpy()


def f32(t):
    return t.to(torch.float32).cpu().numpy()


def capture_nvfp4(out, device, version):
    for dtype, suffix in ((torch.float32, ""), (torch.bfloat16, "_bf16")):
        for mode, preset in nvfp4_presets(version, dtype).items():
            function = "torchao.prototype.mx_formats.nvfp4_tensor.NVFP4Tensor.to_nvfp4(x, block_size=16" + (
                ", per_tensor_scale=per_tensor_amax_to_scale(torch.max(torch.abs(x))))"
                if mode == "two_level" else ")") + "; .dequantize(torch.float32)"
            for case, x32 in inputs.nvfp4_cases().items():
                if dtype == torch.bfloat16:
                    xt, x = bf16_inputs(x32)
                    xt = xt.to(device)
                else:
                    x = x32
                    xt = torch.from_numpy(x.copy()).to(device)
                reason = NVFP4_UNCLAIMED.get(case) if mode == "two_level" else ONE_LEVEL_UNCLAIMED.get(case)
                if not preset:
                    reason = f"no mxv preset models torchao {version} NVFP4"
                common = dict(function=function, mode=mode, element="e2m1", block_size=16, x=x,
                              suite="nvfp4" + suffix, preset="" if reason else preset, unclaimed=reason,
                              input_dtype="bfloat16" if dtype == torch.bfloat16 else None)
                try:
                    pts = per_tensor_amax_to_scale(torch.max(torch.abs(xt))) if mode == "two_level" else None
                    t = NVFP4Tensor.to_nvfp4(xt, block_size=16, per_tensor_scale=pts)
                    deq = t.dequantize(torch.float32)
                except Exception as e:  # the library refused the input: record why
                    out.add(f"nvfp4_{mode}{suffix}", case, error=f"{type(e).__name__}: {e}", **common)
                    continue
                out.add(f"nvfp4_{mode}{suffix}", case, codes=u8(t.qdata), scales=u8(t.scale),
                        global_scale=None if pts is None else f32(pts), dequantized=f32(deq), **common)


def capture_mx(out, device):
    for elem_name, elem_dtype, element in (("fp4", torch.float4_e2m1fn_x2, "e2m1"),
                                           ("fp8", torch.float8_e4m3fn, "e4m3")):
        for mode, scaling in MX_MODES.items():
            preset = f"mx{elem_name}_torchao_{mode}"
            if mode == "rceil" and minor(torchao.__version__) in ("0.16", "0.17"):
                preset += "@0.17"  # RCEIL changed for NaN blocks in 0.18
            function = (f"torchao.prototype.mx_formats.mx_tensor.MXTensor.to_mx(x, torch.{str(elem_dtype)[6:]}, 32, "
                        f"ScaleCalculationMode.{scaling.name}); .dequantize(torch.float32)")
            for case, x in inputs.mx_cases().items():
                xt = torch.from_numpy(x.copy()).to(device)
                common = dict(function=function, mode=mode, element=element, block_size=32, preset=preset, x=x, suite="mx")
                try:
                    t = MXTensor.to_mx(xt, elem_dtype, 32, scaling)
                    deq = t.dequantize(torch.float32)
                except Exception as e:
                    out.add(f"mx{elem_name}_{mode}", case, error=f"{type(e).__name__}: {e}", **common)
                    continue
                out.add(f"mx{elem_name}_{mode}", case, codes=u8(t.qdata), scales=u8(t.scale),
                        dequantized=f32(deq), **common)


def main():
    args = parse_args(__doc__)
    version = torchao.__version__.split("+")[0]
    path = capture_path(args, "torchao", version)
    out = CaptureFile(path, "torchao", version, torch.__version__, args.device)
    capture_nvfp4(out, args.device, version)
    capture_mx(out, args.device)
    out.close()
    print(f"{path}: {out.groups} groups")


if __name__ == "__main__":
    main()
