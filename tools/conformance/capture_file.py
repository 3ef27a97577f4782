"""Writes one library capture: an HDF5 file under golden/libraries/ (schema: docs/conformance.md,
"Capture files").

Root attributes give the provenance (library, library_version, torch_version, numpy_version,
python_version, device, date, command). One group per (function + mode, input case),
/<function_mode>/<case>, with attributes

  function    the library function called (dotted path and arguments that matter)
  mode        the mode string ("floor", "two_level", ...)
  element     "e2m1" or "e4m3"
  block_size  16 or 32
  preset      the mxv preset that claims to reproduce this group byte for byte, or "" (none)
  error       present only when the library refused the input (its exception text)
  unclaimed   present only when nothing is claimed: why no preset (or conversion) claims the group;
              with `claimed`, why the outputs left out of it are not compared
  claimed     optional: the outputs compared, comma-separated ("codes"); absent: every output held
  convert     casts only: the mxv conversion claimed, "format:rounding:saturation:dialect" (the
              names mxv convert takes), or "" (then `unclaimed` says why)

and datasets (floats stored as their uint32 bit patterns, so NaN payloads survive):

  input         (attribute) the path of the input dataset, /inputs/<suite>/<case>: uint32
                [rows, K], the fp32 input bits (stored once per file, shared by the groups)
  input_dtype   (attribute, optional) "bfloat16" when the library was given bf16 tensors: the input
                dataset then holds those bf16 values widened to fp32 (exact); absent: float32
  codes         uint8  [rows, Kp]      packed E2M1 (element 2i low nibble) or E4M3 bytes, as the
                                       library returned them (Kp may include its padding)
  scales        uint8  [rows, blocks]  block scale bytes, unswizzled
  global_scale  uint32 [1]             the fp32 per-tensor decode scale (NVFP4 only)
  dequantized   uint32 [rows, K]       the library's fp32 dequantization of its own output
"""

import argparse
import datetime
import os
import platform
import shlex
import sys

import h5py
import numpy as np


# NVFP4 input cases that no library preset claims, and why (docs/conformance.md, "Not claimed").
NVFP4_UNCLAIMED = {
    "nan_block": "a NaN element makes the tensor amax NaN; which NaN bits torch's CPU max reduction "
                 "(0xFFFFFFFF) and broadcast kernels pass on, and so every NaN scale byte and "
                 "payload-dependent code, is not modelled",
}


def _dataset(group, name, data):
    # gzip + shuffle (both built into every libhdf5): the inputs are mostly zero padding.
    data = np.ascontiguousarray(data)
    if data.nbytes >= 4096:
        group.create_dataset(name, data=data, compression="gzip", compression_opts=9, shuffle=True)
    else:
        group.create_dataset(name, data=data)


def parse_args(doc):
    """The options every capture script takes: --out DIR (default golden/libraries) and --device."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                      "golden", "libraries"))
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    return parser.parse_args()


def capture_path(args, stem, version):
    """<out>/<stem>-<version>[-<device>].h5 (CPU captures carry no device suffix)."""
    os.makedirs(args.out, exist_ok=True)
    suffix = "" if args.device == "cpu" else f"-{args.device}"
    return os.path.normpath(os.path.join(args.out, f"{stem}-{version}{suffix}.h5"))


def bf16_inputs(x):
    """x (fp32 numpy) rounded to bf16 by torch (nearest-even): the bf16 tensor the library gets,
    and its values widened to fp32, exactly, for the capture's input dataset."""
    import torch
    xb = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)).to(torch.bfloat16)
    return xb, xb.to(torch.float32).numpy()


def f32_bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32)).view(np.uint32)


def describe_device(device):
    """"cpu", or "cuda: <GPU name>, sm_XY" for a GPU capture."""
    if device == "cpu":
        return device
    import torch  # every GPU capture runs torch
    major, minor = torch.cuda.get_device_capability()
    return f"{device}: {torch.cuda.get_device_name()}, sm_{major}{minor}"


class CaptureFile:
    def __init__(self, path, library, library_version, torch_version, device):
        self.h5 = h5py.File(path, "w", libver=("v108", "latest"))
        self.inputs = {}
        attrs = self.h5.attrs
        attrs["library"] = library
        attrs["library_version"] = str(library_version)
        attrs["torch_version"] = str(torch_version)
        attrs["numpy_version"] = np.__version__
        attrs["python_version"] = platform.python_version()
        attrs["device"] = describe_device(device)
        attrs["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        attrs["command"] = " ".join(shlex.quote(a) for a in sys.argv)
        self.groups = 0

    def input_path(self, suite, case, x):
        """Stores each input once, at /inputs/<suite>/<case>; groups name it in attribute `input`."""
        path = f"inputs/{suite}/{case}"
        if path not in self.inputs:
            _dataset(self.h5.require_group(f"inputs/{suite}"), case, f32_bits(x))
            self.inputs[path] = True
        return "/" + path

    def add(self, function_mode, case, *, function, mode, element, block_size, preset, x, suite,
            codes=None, scales=None, global_scale=None, dequantized=None, error=None, unclaimed=None,
            convert=None, input_dtype=None, claimed=None):
        g = self.h5.create_group(f"{function_mode}/{case}")
        g.attrs["function"] = function
        g.attrs["mode"] = mode
        g.attrs["element"] = element
        g.attrs["block_size"] = np.int32(block_size)
        g.attrs["preset"] = preset
        g.attrs["input"] = self.input_path(suite, case, x)
        if error is not None:
            g.attrs["error"] = error
        if unclaimed is not None:
            g.attrs["unclaimed"] = unclaimed
        if convert is not None:
            g.attrs["convert"] = convert
        if input_dtype is not None:
            g.attrs["input_dtype"] = input_dtype
        if claimed is not None:
            g.attrs["claimed"] = claimed
        if codes is not None:
            _dataset(g, "codes", np.asarray(codes, dtype=np.uint8))
        if scales is not None:
            _dataset(g, "scales", np.asarray(scales, dtype=np.uint8))
        if global_scale is not None:
            _dataset(g, "global_scale", f32_bits(np.reshape(global_scale, (1,))))
        if dequantized is not None:
            _dataset(g, "dequantized", f32_bits(dequantized))
        self.groups += 1

    def close(self):
        self.h5.close()
