#!/usr/bin/env python3
"""The GPU check's models in JAX, on the same arguments: the anchor.

For one model (the MLP of gen-mlp.py or the transformer of
bench/TransformerModel.cpp) under one policy, with the arguments a step
saved (cotangent-step --save-inputs), times jax.jit(jax.grad(loss)) over
all arguments (median of --repeat after --warmup, block_until_ready) at
JAX's default matmul precision (TF32 on this GPU) and at "highest" (FP32),
reads XLA's peak as memory_analysis() output + temp bytes, and writes the
"highest" loss and gradients as output0.npy, gradient<i>.npy (the reference
cotangent-step --expect reads) and the figures as JSON.
"""
import argparse
import glob
import json
import os
import time

import numpy as np
import jax
import jax.numpy as jnp

from jax_models import mlp_loss, transformer_loss


def measure(loss, args, precision, warmup, repeat, hlo=None):
    with jax.default_matmul_precision(precision):
        grad = jax.jit(jax.value_and_grad(loss, argnums=tuple(range(len(args)))))
        compiled = grad.lower(*args).compile()
        memory = compiled.memory_analysis()
        if hlo:  # XLA's optimized program: its fusions are the kernels we compare with
            with open(hlo, "w") as f:
                f.write(compiled.as_text())
        for _ in range(warmup):
            jax.block_until_ready(compiled(*args))
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            result = jax.block_until_ready(compiled(*args))
            times.append(time.perf_counter() - start)
    peak = memory.output_size_in_bytes + memory.temp_size_in_bytes
    return result, {"median_ms": float(np.median(times)) * 1e3, "min_ms": min(times) * 1e3,
                    "peak_bytes": int(peak)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["mlp", "transformer"], required=True)
    parser.add_argument("--policy", required=True)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--inputs", required=True, help="arg<i>.npy from cotangent-step --save-inputs")
    parser.add_argument("--expect-out", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--hlo", help="write XLA's optimized HLO (\"highest\" precision) here")
    a = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(a.inputs, "arg*.npy")),
                   key=lambda p: int(os.path.basename(p)[3:-4]))
    args = [jnp.asarray(np.load(p)) for p in paths]
    loss = mlp_loss(a.policy) if a.model == "mlp" else transformer_loss(a.policy, a.heads)
    figures = {"device": str(jax.devices()[0]), "jax": jax.__version__}
    try:
        (value, grads), figures["highest"] = measure(loss, args, "highest", a.warmup, a.repeat,
                                                     a.hlo)
        _, figures["default"] = measure(loss, args, "default", a.warmup, a.repeat)
    except Exception as e:  # an unsupported policy is reported, not hidden
        figures["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        json.dump(figures, open(a.json, "w"), indent=1)
        print(f"jax: {a.model} {a.policy}: {figures['error']}")
        return
    os.makedirs(a.expect_out, exist_ok=True)
    np.save(os.path.join(a.expect_out, "output0.npy"), np.asarray(value))
    for i, g in enumerate(grads):
        np.save(os.path.join(a.expect_out, f"gradient{i}.npy"), np.asarray(g))
    json.dump(figures, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
