#!/usr/bin/env python3
"""Oracle side of ml_dtypes_dialect_test: what ml_dtypes `astype` makes of fp32 bit patterns.

  ml_dtypes_dialect.py version            -> prints "ml_dtypes <version> numpy <version>"
  ml_dtypes_dialect.py codes FORMAT LO HI -> writes to stdout the raw code bytes (one per input)
                                             of the fp32 patterns [LO*2^24, HI*2^24), in order
FORMAT: e4m3 (float8_e4m3fn), e2m1 (float4_e2m1fn, one code per byte), e8m0 (float8_e8m0fnu).
"""
import sys

import ml_dtypes
import numpy as np

DTYPES = {
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e2m1": ml_dtypes.float4_e2m1fn,
    "e8m0": ml_dtypes.float8_e8m0fnu,
}
CHUNK = 1 << 24


def main(argv):
    if len(argv) == 2 and argv[1] == "version":
        print(f"ml_dtypes {ml_dtypes.__version__} numpy {np.__version__}")
        return 0
    if len(argv) != 5 or argv[1] != "codes" or argv[2] not in DTYPES:
        print(__doc__, file=sys.stderr)
        return 2
    dtype = DTYPES[argv[2]]
    lo, hi = int(argv[3]), int(argv[4])
    out = sys.stdout.buffer
    for k in range(lo, hi):
        bits = np.arange(k * CHUNK, (k + 1) * CHUNK, dtype=np.uint64).astype(np.uint32)
        with np.errstate(all="ignore"):  # NaN/overflow casts are the point, not warnings
            codes = bits.view(np.float32).astype(dtype).view(np.uint8)
        out.write(codes.tobytes())
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
