#!/usr/bin/env python3
"""The GPU check's models in JAX, on the same arguments: the anchor.

For one model (the MLP of gen-mlp.py, the transformer of
bench/TransformerModel.cpp or GPT-2 of models/gpt2) under one policy, with the arguments a step
saved (cotangent-step --save-inputs), times jax.jit(jax.grad(loss)) over
all arguments (median of --repeat after --warmup, block_until_ready) at
JAX's default matmul precision (TF32 on this GPU) and at "highest" (FP32),
reads XLA's peak as memory_analysis() output + temp bytes, and writes the
"highest" loss and gradients as output0.npy, gradient<i>.npy (the reference
cotangent-step --expect reads) and the figures as JSON. --batch does so for
many models in one process, which starts JAX and the GPU once.
"""
import argparse
import glob
import json
import os
import time

import numpy as np
import jax
import jax.numpy as jnp

from jax_models import gpt2_loss, mlp_loss, transformer_loss


def measure(loss, args, precision, warmup, repeat, hlo=None):
    # Gradients of the floating-point arguments (GPT-2's token ids have none).
    argnums = tuple(i for i, a in enumerate(args) if jnp.issubdtype(a.dtype, jnp.floating))
    with jax.default_matmul_precision(precision):
        grad = jax.jit(jax.value_and_grad(loss, argnums=argnums))
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


def run_model(model, policy, heads, inputs, expect_out, json_path, warmup, repeat, hlo=None):
    """Measures one model and writes its reference and figures (or its error) as JSON."""
    paths = sorted(glob.glob(os.path.join(inputs, "arg*.npy")),
                   key=lambda p: int(os.path.basename(p)[3:-4]))
    args = [jnp.asarray(np.load(p)) for p in paths]
    loss = {"mlp": lambda: mlp_loss(policy), "gpt2": lambda: gpt2_loss(policy),
            "transformer": lambda: transformer_loss(policy, heads)}[model]()
    figures = {"device": str(jax.devices()[0]), "jax": jax.__version__}
    try:
        (value, grads), figures["highest"] = measure(loss, args, "highest", warmup, repeat, hlo)
        _, figures["default"] = measure(loss, args, "default", warmup, repeat)
    except Exception as e:  # an unsupported policy is reported, not hidden
        figures["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        json.dump(figures, open(json_path, "w"), indent=1)
        print(f"jax: {model} {policy}: {figures['error']}")
        return
    os.makedirs(expect_out, exist_ok=True)
    np.save(os.path.join(expect_out, "output0.npy"), np.asarray(value))
    # Integer arguments: zero gradients of their dtype, as Cotangent's step returns.
    differentiated = iter(grads)
    for i, a in enumerate(args):
        g = next(differentiated) if jnp.issubdtype(a.dtype, jnp.floating) else np.zeros(a.shape, a.dtype)
        np.save(os.path.join(expect_out, f"gradient{i}.npy"), np.asarray(g))
    json.dump(figures, open(json_path, "w"), indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["mlp", "transformer", "gpt2"])
    parser.add_argument("--policy")
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--inputs", help="arg<i>.npy from cotangent-step --save-inputs")
    parser.add_argument("--expect-out")
    parser.add_argument("--json")
    parser.add_argument("--batch", help="a file of lines 'MODEL POLICY INPUTS EXPECT_OUT JSON': "
                        "every model in this one process (JAX and the GPU start once)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--hlo", help="write XLA's optimized HLO (\"highest\" precision) here")
    a = parser.parse_args()
    if a.batch:
        for line in open(a.batch):
            if line.strip() and not line.startswith("#"):
                model, policy, inputs, expect_out, json_path = line.split()
                run_model(model, policy, a.heads, inputs, expect_out, json_path, a.warmup,
                          a.repeat)
        return
    if not (a.model and a.policy and a.inputs and a.expect_out and a.json):
        parser.error("give --batch, or --model, --policy, --inputs, --expect-out and --json")
    run_model(a.model, a.policy, a.heads, a.inputs, a.expect_out, a.json, a.warmup, a.repeat,
              a.hlo)


if __name__ == "__main__":
    main()
