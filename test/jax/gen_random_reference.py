#!/usr/bin/env python3
"""Writes what jax.random draws for a set of keys and shapes.

JAX is Cotangent's oracle, not its dependency: run this in the venv that
scripts/jax-venv.sh makes; its output, test/jax/reference/random.json, is
committed, and the default suite's RandomTest (test/unit/api) compares
tracer/Random.h with it without Python.

Keys and integer draws are stored as integers; floats as their float32 bit
patterns (so the comparison can be exact) and as decimals (for reading).

  gen_random_reference.py [--out FILE]     write the reference (default: beside this script)
  gen_random_reference.py --check FILE     regenerate and compare with FILE; exit 1 on a difference
"""
import sys

import jax
import jax.numpy as jnp
import numpy as np

import reference_file

SEEDS = [0, 1, 42, 2**31 - 1, -1, 2**40 + 3]
SHAPES = [(1,), (7,), (3, 4), (2, 3, 5), (64,)]


def key_words(key):
    return [int(w) for w in np.asarray(jax.random.key_data(key)).reshape(-1)]


def float_bits(x):
    a = np.asarray(x, dtype=np.float32).reshape(-1)
    return a.view(np.uint32).astype(np.int64).tolist(), a.astype(float).tolist()


def cases():
    out = []
    for seed in SEEDS:
        key = jax.random.PRNGKey(seed)
        out.append({"op": "PRNGKey", "seed": seed, "key": key_words(key)})
        for num in (2, 3, 5):
            out.append({"op": "split", "seed": seed, "num": num,
                        "keys": [key_words(k) for k in jax.random.split(key, num)]})
        for data in (0, 7, 2**32 - 1):
            out.append({"op": "fold_in", "seed": seed, "data": data,
                        "key": key_words(jax.random.fold_in(key, np.uint32(data)))})
    for i, seed in enumerate(SEEDS):
        key = jax.random.PRNGKey(seed)
        for j, shape in enumerate(SHAPES):
            sub = jax.random.fold_in(key, j)  # a different key per shape too
            bits = np.asarray(jax.random.bits(sub, shape, jnp.uint32)).reshape(-1)
            out.append({"op": "bits", "seed": seed, "fold": j, "shape": list(shape),
                        "values": bits.astype(np.int64).tolist()})
            lo, hi = [(0.0, 1.0), (-3.0, 5.0), (2.0, 2.5)][(i + j) % 3]
            b, d = float_bits(jax.random.uniform(sub, shape, jnp.float32, lo, hi))
            out.append({"op": "uniform", "seed": seed, "fold": j, "shape": list(shape),
                        "minval": lo, "maxval": hi, "bits": b, "values": d})
            b, d = float_bits(jax.random.normal(sub, shape, jnp.float32))
            out.append({"op": "normal", "seed": seed, "fold": j, "shape": list(shape),
                        "bits": b, "values": d})
            lower, upper = [(-2.0, 2.0), (-1.0, 3.0), (0.5, 1.5)][(i + j) % 3]
            b, d = float_bits(jax.random.truncated_normal(sub, lower, upper, shape, jnp.float32))
            out.append({"op": "truncated_normal", "seed": seed, "fold": j,
                        "shape": list(shape), "lower": lower, "upper": upper,
                        "bits": b, "values": d})
            p = [0.5, 0.1, 0.9][(i + j) % 3]
            mask = np.asarray(jax.random.bernoulli(sub, p, shape)).reshape(-1)
            out.append({"op": "bernoulli", "seed": seed, "fold": j, "shape": list(shape),
                        "p": p, "values": mask.astype(np.int64).tolist()})
    return out


def document():
    return {"generator": "test/jax/gen_random_reference.py", "jax": jax.__version__,
            "threefry_partitionable": bool(jax.config.jax_threefry_partitionable),
            "cases": cases()}


if __name__ == "__main__":
    sys.exit(reference_file.main(document, "random.json", f"JAX {jax.__version__}",
                                 __doc__.splitlines()[0]))
