#!/usr/bin/env python3
"""Runs ptxas on every PTX module embedded in the output of
`cotangent-opt --jx-to-nvvm="format=isa"`.

usage: check-ptx.py FILE.mlir --ptxas PATH --arch sm_90 --out-dir DIR

Each `gpu.binary @name [#gpu.object<..., assembly = "...">]` is decoded
(MLIR prints non-printable characters as \\XX hex escapes), written to
DIR/name.ptx and assembled with `ptxas -arch=ARCH`. Prints one line per
module (its .target and kernel entries) and a total; exits 1 when ptxas
rejects a module or when there is none.
"""
import argparse
import os
import re
import subprocess
import sys

BINARY = re.compile(r'gpu\.binary @(\w+)\s*\[#gpu\.object<.*?assembly = "((?:[^"\\]|\\.)*)"',
                    re.S)


def decode(text):
    out, i = bytearray(), 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in '\\"':
            out += nxt.encode()
            i += 2
        elif nxt == "n":
            out += b"\n"
            i += 2
        elif nxt == "t":
            out += b"\t"
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    return out.decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--out-dir", required=True)
    args = parser.parse_args()
    with open(args.input) as f:
        mlir = f.read()
    modules = BINARY.findall(mlir)
    if not modules:
        print("no PTX module (was format=isa given?)", file=sys.stderr)
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    kernels = 0
    for name, escaped in modules:
        ptx = decode(escaped)
        path = os.path.join(args.out_dir, name + ".ptx")
        with open(path, "w") as f:
            f.write(ptx)
        result = subprocess.run([args.ptxas, "-arch=" + args.arch, "-o", os.devnull, path],
                                capture_output=True, text=True)
        if result.returncode != 0:
            print(f"ptxas -arch={args.arch} rejected {path}:\n{result.stderr}", file=sys.stderr)
            return 1
        target = re.search(r"^\.target (\S+)", ptx, re.M)
        entries = re.findall(r"\.entry (\w+)", ptx)
        kernels += len(entries)
        print(f"{name}: .target {target.group(1) if target else '?'} "
              f"entries {' '.join(entries)}: ok")
    print(f"ptxas -arch={args.arch} accepted {len(modules)} modules, {kernels} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
