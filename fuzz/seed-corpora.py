#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora under fuzz/corpus/ (checked in; rerun
after the test inputs change much):
  ir-pipeline     the jx programs of examples/ and test/ (split at `// -----`,
                  RUN/CHECK lines dropped), up to 4 KiB each
  valid-programs  seeded random byte strings (each one a generated program)
  npy             small .npy files of every dtype and rank the readers take,
                  plus a few broken ones
  token-file      llm.c shards and raw .bin token files, plus broken ones
  safetensors     small checkpoints of every dtype, with metadata, plus
                  broken ones (truncated, bad JSON, overlapping ranges)"""
import hashlib
import json
import os
import random
import re
import struct

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.path.join(root, "fuzz", "corpus")


def write(kind, data):
    folder = os.path.join(corpus, kind)
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def ir_seeds():
    sources = []
    for top in ("examples", "test"):
        for d, _, files in os.walk(os.path.join(root, top)):
            sources += [os.path.join(d, f) for f in files if f.endswith(".mlir")]
    seen = set()
    for path in sorted(sources):
        text = open(path, encoding="utf-8").read()
        if "gpu.module" in text or "llvm.func" in text:
            continue  # not jx programs
        for chunk in text.split("// -----"):
            lines = [l for l in chunk.splitlines()
                     if not re.match(r"\s*//\s*(RUN|CHECK|expected-)", l)]
            body = "\n".join(lines).strip() + "\n"
            if "func.func" in body and len(body) <= 4096 and body not in seen:
                seen.add(body)
                write("ir-pipeline", body.encode())


def npy(descr, shape, data, major=1, fortran="False"):
    dims = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, dims)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    length = struct.pack("<H", len(header)) if major == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([major, 0]) + length + header.encode() + data


def npy_seeds():
    rng = random.Random(19)
    items = {"<f4": 4, "<f8": 8, "<i4": 4, "<i8": 8, "|b1": 1}
    for descr, size in items.items():
        for shape in [(), (3,), (2, 3), (2, 1, 2)]:
            n = 1
            for d in shape:
                n *= d
            data = bytes(rng.randrange(256) for _ in range(n * size))
            write("npy", npy(descr, shape, data))
    write("npy", npy("<f4", (0, 3), b""))
    write("npy", npy("<f8", (2,), bytes(16), major=2))
    write("npy", npy("<f4", (2,), bytes(8), major=3))
    write("npy", npy("<f4", (2, 2), bytes(16), fortran="True"))
    write("npy", npy(">f4", (2,), bytes(8)))
    write("npy", npy("<c8", (2,), bytes(16)))
    write("npy", npy("<f4", (4,), bytes(8)))          # data too short
    write("npy", npy("<f4", (2,), bytes(8))[:20])     # header cut short
    write("npy", npy("<f4", (1 << 62, 8), b""))       # a shape no memory holds


def program_seeds():
    rng = random.Random(7)
    for n in range(24):
        write("valid-programs", bytes(rng.randrange(256) for _ in range(rng.randrange(16, 160))))


def shard(tokens, magic=20240520, version=1, count=None):
    header = struct.pack("<3i", magic, version, len(tokens) if count is None else count)
    header += bytes(1024 - len(header))
    return header + struct.pack(f"<{len(tokens)}H", *tokens)


def token_seeds():
    rng = random.Random(44)
    for n in (1, 2, 9, 17, 64):
        tokens = [rng.randrange(65536) for _ in range(n)]
        write("token-file", shard(tokens))
        write("token-file", struct.pack(f"<{n}H", *tokens))   # nanoGPT's raw .bin
    write("token-file", "Cotangent trains on any text.\n".encode())  # bytes as raw tokens
    write("token-file", shard([1, 2, 3])[:100])                     # header cut short
    write("token-file", shard([1, 2, 3], version=2))
    write("token-file", shard([1, 2, 3], count=5))
    write("token-file", shard([1, 2, 3], count=-1))
    write("token-file", shard([]))
    write("token-file", b"abc")                                       # odd size


def safetensors(tensors, metadata=None, pad=True):
    """A safetensors file of {name: (dtype, shape, bytes)}."""
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds():
    write("safetensors", safetensors({"w": ("F32", [2, 3], struct.pack("<6f", *range(6))),
                                      "count": ("I32", [], struct.pack("<i", 7))},
                                     {"step": "7", "format": "pt"}))
    write("safetensors", safetensors({"h.0.ln_1.weight": ("BF16", [4], b"\x80\x3f" * 4),
                                      "ids": ("U16", [3], struct.pack("<3H", 1, 2, 3)),
                                      "x": ("F64", [1], struct.pack("<d", 0.5)),
                                      "m": ("BOOL", [2], b"\x01\x00")}, pad=False))
    write("safetensors", safetensors({}))
    good = safetensors({"w": ("F32", [4], b"\0" * 16)})
    write("safetensors", good[:-3])                                  # truncated data
    write("safetensors", good[:12])                                  # truncated header
    write("safetensors", struct.pack("<Q", 4) + b"{\"a\"")             # bad JSON
    write("safetensors", safetensors({"a": ("F32", [2], b"\0" * 8), "b": ("F32", [2], b"\0" * 8)})
          .replace(b"[8, 16]", b"[4, 12]"))                          # overlapping ranges
    write("safetensors", safetensors({"w": ("Q4", [2], b"\0" * 2)}))  # unknown dtype


ir_seeds()
npy_seeds()
program_seeds()
token_seeds()
safetensors_seeds()
