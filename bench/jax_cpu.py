#!/usr/bin/env python3
"""JAX's side of cotangent-bench --run compare, on the same CPU.

Reads the bench's rows (JSON: a list of {"id", "model": "mlp" |
"transformer" | "gpt2", "policy", "layers", "width", "batch", "blocks",
"seq", "heads", "repeats", "warmup", "compile_only"; GPT-2's also "vocab",
"context"}), and for each traces and compiles
jax.jit(jax.value_and_grad(loss, argnums=the float ones)) on random
arguments of the model's shapes (GPT-2's token ids int32 in its vocabulary) (the compile time is jit's lower() plus
compile()), reads XLA's peak as memory_analysis() output + temp bytes (and its
argument bytes), and
unless compile_only times the step (median and min of `repeats` runs after
`warmup`, block_until_ready). Writes {"jax", "devices", "threads", "rows":
{id: figures}, "max_rss_bytes"} as JSON to the file given.

    jax_cpu.py ROWS.json OUT.json
"""
import json
import os
import resource
import sys
import time

import numpy as np
import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jax_models import gpt2_loss, gpt2_shapes, mlp_loss, transformer_loss, transformer_shapes  # noqa: E402


def arguments(row, rng):
    if row["model"] == "gpt2":
        args = [jnp.asarray(rng.uniform(-0.05, 0.05, s).astype(np.float32))
                for s in gpt2_shapes(row["layers"], row["width"], row["vocab"], row["context"])]
        ids = [jnp.asarray(rng.integers(0, row["vocab"], (row["batch"], row["seq"]), dtype=np.int32))
               for _ in range(2)]
        return args + ids
    if row["model"] == "mlp":
        w = row["width"]
        shapes = [(row["batch"], w)] + [(w, w)] * row["layers"]
    else:
        x = (row["batch"], row["seq"], row["width"]) if row["batch"] else (row["seq"], row["width"])
        shapes = [x] + transformer_shapes(row["blocks"], row["width"])
    args = []
    for shape in shapes:
        # Weights scaled as the bench scales them, so tanh stays unsaturated.
        scale = 1.0 / np.sqrt(shape[0]) if len(shape) == 2 and shape[0] == shape[1] else 1.0
        args.append(jnp.asarray(rng.uniform(-scale, scale, shape).astype(np.float32)))
    return args


def measure(row, rng):
    args = arguments(row, rng)
    # A compile-only row compiles `repeats` times, from a fresh function and
    # empty caches each time, and reports the median (as the C++ side does).
    compile_s = []
    for _ in range(row["repeats"] if row.get("compile_only") else 1):
        jax.clear_caches()
        loss = {"mlp": lambda: mlp_loss(row["policy"]),
                "transformer": lambda: transformer_loss(row["policy"], row["heads"]),
                "gpt2": lambda: gpt2_loss(row["policy"], row["width"] // max(row["heads"], 1))}[row["model"]]()
        floats = tuple(i for i, a in enumerate(args) if jnp.issubdtype(a.dtype, jnp.floating))
        start = time.perf_counter()
        step = jax.jit(jax.value_and_grad(loss, argnums=floats))
        compiled = step.lower(*args).compile()
        compile_s.append(time.perf_counter() - start)
    figures = {"compile_s": float(np.median(compile_s))}
    memory = compiled.memory_analysis()
    figures["peak_bytes"] = int(memory.output_size_in_bytes + memory.temp_size_in_bytes)
    figures["output_bytes"] = int(memory.output_size_in_bytes)
    figures["argument_bytes"] = int(memory.argument_size_in_bytes)
    figures["temp_bytes"] = int(memory.temp_size_in_bytes)
    if row.get("compile_only"):
        return figures
    for _ in range(row["warmup"]):
        jax.block_until_ready(compiled(*args))
    times = []
    for _ in range(row["repeats"]):
        start = time.perf_counter()
        jax.block_until_ready(compiled(*args))
        times.append(time.perf_counter() - start)
    figures["median_ms"] = float(np.median(times)) * 1e3
    figures["min_ms"] = min(times) * 1e3
    return figures


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: jax_cpu.py ROWS.json OUT.json")
    with open(sys.argv[1]) as f:
        rows = json.load(f)
    rng = np.random.default_rng(2)
    out = {"jax": jax.__version__, "devices": [str(d) for d in jax.devices()],
           "threads": os.cpu_count(), "rows": {}}
    for row in rows:
        try:
            out["rows"][row["id"]] = measure(row, rng)
        except Exception as e:  # reported in the table, not hidden
            out["rows"][row["id"]] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
        print(f"jax: {row['id']}: {out['rows'][row['id']]}", file=sys.stderr, flush=True)
    out["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with open(sys.argv[2], "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
