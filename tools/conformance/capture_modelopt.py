#!/usr/bin/env python3
"""Runs the installed NVIDIA ModelOpt NVFP4 quantizer on the adversarial inputs (inputs.py) and
writes a capture (capture_file.py) to golden/libraries/modelopt-<version>.h5. docs/conformance.md
says how to install ModelOpt without its heavy dependencies and which preset reproduces it.

  python tools/conformance/capture_modelopt.py [--out DIR] [--device cpu|cuda]

Function captured (modelopt.torch.quantization.qtensor.nvfp4_tensor):
  nvfp4  NVFP4QTensor.quantize(x, 16) -> (qtensor, per-block scale e4m3, scale_2 fp32), then
         qtensor.dequantize(torch.float32, scale=..., double_scale=scale_2, block_sizes={-1: 16})
"""

import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inputs  # noqa: E402
from capture_file import NVFP4_UNCLAIMED, CaptureFile, capture_path, parse_args  # noqa: E402

warnings.filterwarnings("ignore")

import modelopt  # noqa: E402
from modelopt.torch.quantization.qtensor import nvfp4_tensor  # noqa: E402
from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor  # noqa: E402

# A NaN element makes the tensor amax NaN, so every scale and the global scale are NaN, but
# _cast_fp4 gives every NaN the same code whatever its bits (sign from x < 0: none; searchsorted
# puts NaN past the last bound: 7), so the codes are claimed and the rest is not.
NAN_BLOCK_CODES_ONLY = ("codes claimed (every NaN quotient is 0x7 whatever its bits); not compared: the scale "
                        "bytes (0x7F / 0xFF by the sign of the NaN torch's CPU max reduction and broadcast "
                        "kernels pass on), the global scale and the dequantized values (their NaN payloads)")

FUNCTION = ("modelopt.torch.quantization.qtensor.nvfp4_tensor.NVFP4QTensor.quantize(x, 16); "
            ".dequantize(torch.float32, scale=, double_scale=, block_sizes={-1: 16})")


def preset_for(version):
    v = ".".join(version.split(".")[:2])
    return f"nvfp4_modelopt@{v}" if v in ("0.43", "0.47") else ""


def main():
    args = parse_args(__doc__)
    version = modelopt.__version__.split("+")[0]
    path = capture_path(args, "modelopt", version)
    out = CaptureFile(path, "nvidia-modelopt", version, torch.__version__, args.device)
    preset = preset_for(version)
    if args.device == "cpu":
        # 0.43 asks fp4_compatible() (a CUDA device query that raises without a driver) before
        # looking at try_tensorrt; the answer only selects the TensorRT-LLM path, which a CPU
        # tensor never takes, so on the CPU it is answered "no" here.
        nvfp4_tensor.fp4_compatible = lambda: False
    for case, x in inputs.nvfp4_cases().items():
        xt = torch.from_numpy(x.copy()).to(args.device)
        common = dict(function=FUNCTION, mode="dynamic", element="e2m1", block_size=16, x=x, suite="nvfp4",
                      preset=preset, unclaimed=NAN_BLOCK_CODES_ONLY if case in NVFP4_UNCLAIMED else None,
                      claimed="codes" if case in NVFP4_UNCLAIMED else None)
        try:
            qt, scale, scale_2 = NVFP4QTensor.quantize(xt, 16)
        except Exception as e:  # the library refused the input: record why
            out.add("nvfp4", case, error=f"{type(e).__name__}: {e}", **common)
            continue
        deq = None
        if x.shape[-1] % 16 == 0:  # dequantize reshapes to the unpadded shape: only whole blocks
            deq = qt.dequantize(torch.float32, scale=scale, double_scale=scale_2, block_sizes={-1: 16})
            deq = deq.to(torch.float32).cpu().numpy()
        out.add("nvfp4", case, codes=qt._quantized_data.contiguous().view(torch.uint8).cpu().numpy(),
                scales=scale.contiguous().view(torch.uint8).cpu().numpy(),
                global_scale=scale_2.to(torch.float32).cpu().numpy(), dequantized=deq, **common)
    out.close()
    print(f"{path}: {out.groups} groups")


if __name__ == "__main__":
    main()
