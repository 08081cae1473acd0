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
import math
import os
import time

import numpy as np
import jax
import jax.ad_checkpoint
import jax.numpy as jnp

cp = jax.checkpoint_policies


def offload_policy():
    return cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["dot"],
        offload_src="device", offload_dst="pinned_host")


def policy_of(name):
    return {"none": None, "nothing_saveable": cp.nothing_saveable,
            "dots_saveable": cp.dots_saveable}[name]


def mlp_loss(policy):
    def layer(h, w):
        return jnp.tanh(jax.ad_checkpoint.checkpoint_name(h @ w, "dot"))

    def loss(x, *ws):
        if policy == "offload":
            def body(x, *ws):
                for w in ws:
                    x = layer(x, w)
                return x
            return jnp.sum(jax.checkpoint(body, policy=offload_policy())(x, *ws))
        step = layer if policy_of(policy) is None else jax.checkpoint(layer, policy=policy_of(policy))
        h = x
        for w in ws:
            h = step(h, w)
        return jnp.sum(h)
    return loss


def transformer_loss(policy, heads):
    # bench/TransformerModel.cpp, term for term.
    def layer_norm(x, scale, shift):
        centred = x - jnp.mean(x, axis=-1, keepdims=True)
        variance = jnp.mean(centred * centred, axis=-1, keepdims=True)
        return centred * jax.lax.rsqrt(variance + 1e-6) * scale + shift

    def gelu(x):
        c = math.sqrt(2.0 / math.pi)
        return 0.5 * x * (1.0 + jnp.tanh(c * (x + 0.044715 * x * x * x)))

    def attention(x, wq, wk, wv, wo):
        seq, width = x.shape
        dh = width // heads
        split = lambda t: jnp.transpose(jnp.reshape(t, (seq, heads, dh)), (1, 0, 2))
        q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
        scores = jnp.matmul(q, jnp.transpose(k, (0, 2, 1))) / math.sqrt(dh)
        positions = jnp.arange(seq)
        causal = positions[:, None] >= positions[None, :]
        scores = jnp.where(causal, scores, -1e9)
        e = jnp.exp(scores - jnp.max(scores, axis=-1, keepdims=True))
        probs = e / jnp.sum(e, axis=-1, keepdims=True)
        out = jnp.transpose(jnp.matmul(probs, v), (1, 0, 2))
        return jnp.reshape(out, (seq, width)) @ wo

    def block(h, *p):
        h = h + attention(layer_norm(h, p[0], p[1]), p[2], p[3], p[4], p[5])
        return h + gelu(layer_norm(h, p[6], p[7]) @ p[8]) @ p[9]

    def loss(x, *params):
        step = block if policy_of(policy) is None else jax.checkpoint(block, policy=policy_of(policy))
        h = x
        for b in range(len(params) // 10):
            h = step(h, *params[10 * b:10 * b + 10])
        return jnp.sum(h)
    return loss


def measure(loss, args, precision, warmup, repeat):
    with jax.default_matmul_precision(precision):
        grad = jax.jit(jax.value_and_grad(loss, argnums=tuple(range(len(args)))))
        compiled = grad.lower(*args).compile()
        memory = compiled.memory_analysis()
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
    a = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(a.inputs, "arg*.npy")),
                   key=lambda p: int(os.path.basename(p)[3:-4]))
    args = [jnp.asarray(np.load(p)) for p in paths]
    loss = mlp_loss(a.policy) if a.model == "mlp" else transformer_loss(a.policy, a.heads)
    figures = {"device": str(jax.devices()[0]), "jax": jax.__version__}
    try:
        (value, grads), figures["highest"] = measure(loss, args, "highest", a.warmup, a.repeat)
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
