"""Writes the hostile .npy files cotangent-run-hostile-inputs.test feeds in.

    make-hostile-npy.py DIR

Each file breaks one thing a reader must check: a header cut short, a
header length pointing past the end, a header that is not a dict, a dtype
Cotangent has no element type for, big-endian data, Fortran order, a shape
that is not a tuple, data shorter than the shape needs, and arrays of the
wrong shape or rank for `@f(f32[2,3])`. Two well-formed files hold NaN and
Inf, which are computed, not rejected.
"""
import os
import struct
import sys


def npy(header, data=b"", header_len=None):
    text = header.encode("latin1")
    pad = 64 - (10 + len(text) + 1) % 64
    text = text + b" " * pad + b"\n"
    n = len(text) if header_len is None else header_len
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", n) + text + data


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    six = f32(1, 2, 3, 4, 5, 6)
    files = {
        "truncated-header.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }")[:30],
        "header-past-end.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                   six, header_len=60000),
        "not-a-dict.npy": npy("[1, 2, 3]", six),
        "complex-dtype.npy": npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }", six * 2),
        "big-endian.npy": npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", six),
        "fortran-order.npy": npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", six),
        "bad-shape.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': 'six', }", six),
        "short-data.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", six[:10]),
        "wrong-shape.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", six),
        "wrong-rank.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", six),
        "wrong-dtype.npy": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                               struct.pack("<6d", 1, 2, 3, 4, 5, 6)),
        "nan.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                       f32(1, float("nan"), 3, 4, 5, 6)),
        "inf.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                       f32(1, 2, 3, float("inf"), 5, 6)),
    }
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
