"""JAX's GPT-2 training step on this GPU: the bar of the GPU line of
issue #45 (GPT-2 124M, bf16, batch 16 x 1024, tokens/s and MFU).

  python3 bench/gpu/jax_gpt2_train.py [--layers 12 --width 768 --batch 16 --seq 1024]

One step: bench/jax_models.py's gpt2_loss with f32 master weights cast to
the compute dtype (mixed precision), its gradient, and AdamW (lr 6e-4,
betas 0.9/0.95, eps 1e-8, weight decay 0.1 on the matrices, llm.c's
settings) written out in jnp, under jax.jit with the parameters and the
optimizer state donated. For each configuration (bf16 with cuDNN's fused
attention, bf16 with the scores materialized, f32 at the default matmul
precision, TF32 on this GPU) prints the median step time of --steps steps after
3 warm-ups (each step waited for), tokens/s, MFU against --peak-tflops
(989: an H100's or H200's dense bf16) and XLA's peak bytes; --json writes
them. Token ids are drawn in [0, vocab) from a fixed seed.
"""
import argparse
import json
import math
import os
import sys
import time

import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from jax_models import gpt2_loss, gpt2_shapes  # noqa: E402


def step_fn(loss, lr=6e-4, b1=0.9, b2=0.95, eps=1e-8, wd=0.1):
    grad = jax.value_and_grad(lambda params, ids, targets: loss(*params, ids, targets))

    def step(params, state, ids, targets):
        value, grads = grad(params, ids, targets)
        m, v, count = state
        count = count + 1
        m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
        v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
        c1, c2 = 1 - b1 ** count, 1 - b2 ** count
        params = [p - lr * ((mi / c1) / (jnp.sqrt(vi / c2) + eps) + (wd * p if p.ndim == 2 else 0))
                  for p, mi, vi in zip(params, m, v)]
        return params, (m, v, count), value
    return jax.jit(step, donate_argnums=(0, 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--width", type=int, default=768)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--peak-tflops", type=float, default=989.0)
    ap.add_argument("--configs", default="bf16-cudnn,bf16-xla,tf32-xla")
    ap.add_argument("--json")
    a = ap.parse_args()
    shapes = gpt2_shapes(a.layers, a.width, a.vocab, a.seq)
    n_params = sum(math.prod(s) for s in shapes)
    tokens = a.batch * a.seq
    # 6 N per token for the parameters, plus causal attention's two products
    # (forward 2 x 2 x T^2/2 x C per sequence and layer, backward twice that).
    flops = 6 * n_params * tokens + 6 * a.layers * a.batch * a.seq * a.seq * a.width
    print(f"device {jax.devices()[0].device_kind}, jax {jax.__version__}; GPT-2 {a.layers} x "
          f"{a.width}, {n_params / 1e6:.1f}M parameters, batch {a.batch} x {a.seq}; "
          f"{flops / 1e12:.2f} TFLOP a step", flush=True)
    key = jax.random.PRNGKey(0)
    rows = []
    for config in a.configs.split(","):
        dtype, attention = config.split("-")
        compute = {"bf16": jnp.bfloat16, "tf32": None, "f32": None}[dtype]
        precision = "highest" if dtype == "f32" else "default"
        keys = jax.random.split(key, len(shapes) + 1)
        params = [0.02 * jax.random.normal(k, s, jnp.float32) for k, s in zip(keys, shapes)]
        ids = jax.random.randint(keys[-1], (a.batch, a.seq + 1), 0, a.vocab, jnp.int32)
        state = ([jnp.zeros_like(p) for p in params], [jnp.zeros_like(p) for p in params],
                 jnp.zeros((), jnp.float32))
        with jax.default_matmul_precision(precision):
            step = step_fn(gpt2_loss("none", attention=attention, compute_dtype=compute))
            compiled = step.lower(params, state, ids[:, :-1], ids[:, 1:]).compile()
            mem = compiled.memory_analysis()
            peak = (mem.argument_size_in_bytes + mem.output_size_in_bytes
                    + mem.temp_size_in_bytes - mem.alias_size_in_bytes) if mem else 0
            times = []
            for i in range(3 + a.steps):
                start = time.perf_counter()
                params, state, loss = step(params, state, ids[:, :-1], ids[:, 1:])
                loss.block_until_ready()
                if i >= 3:
                    times.append(time.perf_counter() - start)
        times.sort()
        median = times[len(times) // 2]
        row = {"config": config, "median_ms": median * 1e3, "tokens_per_second": tokens / median,
               "mfu": flops / median / (a.peak_tflops * 1e12), "peak_bytes": peak,
               "loss": float(loss)}
        rows.append(row)
        print(f"  {config:10s} {row['median_ms']:9.2f} ms  {row['tokens_per_second'] / 1e3:8.1f}K "
              f"tokens/s  MFU {100 * row['mfu']:5.1f}%  XLA peak {peak / 2**20:9.1f} MiB  "
              f"loss {row['loss']:.4f}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": jax.devices()[0].device_kind, "jax": jax.__version__,
                       "layers": a.layers, "width": a.width, "batch": a.batch, "seq": a.seq,
                       "flops_per_step": flops, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
