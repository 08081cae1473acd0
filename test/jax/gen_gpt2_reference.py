#!/usr/bin/env python3
"""Writes the loss and gradients of a tiny nanoGPT-style GPT-2 (Flax linen) for Cotangent's GPT-2.

Flax is Cotangent's oracle, not its dependency: run this in the venv that
scripts/jax-venv.sh makes; its output, test/jax/reference/gpt2-tiny.json, is
committed and read by the C++ GPT-2 test without Python. float32 on the CPU,
every dot at full float32 precision ("highest").

Nothing is random: parameters and tokens come from the formulas in PARAMS_RULE
and TOKENS_RULE (also written into the JSON), so C++ makes the same values
without a shared file. Parameters carry Hugging Face GPT-2's names; the Flax
tree maps to them as (hf_name):
  wte/embedding -> wte.weight, wpe/embedding -> wpe.weight (nn.Embed),
  h_{i}/ln_1/weight -> h.{i}.ln_1.weight (LayerNorm below, likewise ln_2, ln_f),
  h_{i}/attn/c_attn/kernel -> h.{i}.attn.c_attn.weight, .../bias -> ...bias
  (nn.Dense; likewise attn.c_proj, mlp.c_fc, mlp.c_proj). Kernels are [in, out].

Written: the loss; per leaf its gradient's shape, L2 norm, four cosine probes,
first and last 8 elements, all values for leaves of <= 1024 elements; and the
losses of 3 plain SGD steps (lr 0.1) plus the loss after them.

  gen_gpt2_reference.py [--out FILE]     write the reference
  gen_gpt2_reference.py --check FILE     regenerate and compare with FILE (versions aside)
"""
import argparse
import json
import math
import os
import sys

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import traverse_util

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt2_jax import gpt2_loss  # noqa: E402

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_default_matmul_precision", "highest")

CONFIG = {"n_layer": 2, "n_head": 4, "n_embd": 128, "vocab_size": 512, "block_size": 64,
          "batch": 2, "seq": 64, "layer_norm_epsilon": 1e-5, "sgd_lr": 0.1, "sgd_steps": 3}
L, H, C, V, BLOCK = (CONFIG[k] for k in ("n_layer", "n_head", "n_embd", "vocab_size", "block_size"))
B, T, EPS, LR = CONFIG["batch"], CONFIG["seq"], CONFIG["layer_norm_epsilon"], CONFIG["sgd_lr"]

PARAMS_RULE = ("names sorted with Python sorted(); leaf at sorted position s, row-major flat index k: "
               "float32(base + amp * sin(((0.001 * (k + 1)) * (7 + s)) + s)) in float64 (C sin); "
               "base 1.0, amp 0.1 for ln_1/ln_2/ln_f .weight; base 0, amp 0.01 for *.bias; "
               "base 0, amp 0.02 otherwise")
TOKENS_RULE = ("ids[b, t] = (131*b + 17*t + 7) % 512, targets[b, t] = (131*b + 17*(t+1) + 7) % 512, "
               "int32, b < 2, t < 64")
FORMULAS = {
    "embed": "x = wte[ids] + wpe[arange(T)]",
    "block": "x = x + attn(ln_1(x)); x = x + mlp(ln_2(x))",
    "layer_norm": "c = x - mean(x); var = mean(c*c); (c * rsqrt(var + 1e-5)) * weight + bias (last axis)",
    "attn": "qkv = h @ c_attn.weight + c_attn.bias; q, k, v = qkv[..., :C], [C:2C], [2C:]; each "
            "[B,T,H,D] -> [B,H,T,D]; s = (q @ k^T) / sqrt(D); s = finfo(f32).min where key > query; "
            "p = softmax(s, keys); y = (p @ v) -> [B,T,H,D] -> [B,T,C]; y @ c_proj.weight + c_proj.bias",
    "mlp": "gelu_tanh(h @ c_fc.weight + c_fc.bias) @ c_proj.weight + c_proj.bias",
    "logits": "ln_f(x) @ wte.weight^T",
    "loss": "mean over B, T of optax.softmax_cross_entropy_with_integer_labels(logits, targets)",
    "probe": "probe j (j < 4) = sum_k g[k] * cos(0.013 * (k + 1) * (j + 1) + j), float64",
    "sgd": "p = p - 0.1 * g in float32; loss_steps = losses at steps 0, 1, 2 and after step 2",
}


class LayerNorm(nn.Module):
    """Not nn.LayerNorm: that takes var = E[x^2] - E[x]^2 and multiplies rsqrt by the scale first."""
    @nn.compact
    def __call__(self, x):
        w = self.param("weight", nn.initializers.ones, (x.shape[-1],))
        b = self.param("bias", nn.initializers.zeros, (x.shape[-1],))
        c = x - jnp.mean(x, axis=-1, keepdims=True)
        return (c * jax.lax.rsqrt(jnp.mean(c * c, axis=-1, keepdims=True) + EPS)) * w + b


class Attention(nn.Module):
    @nn.compact
    def __call__(self, h):
        b, t, c = h.shape
        qkv = nn.Dense(3 * c, name="c_attn")(h)
        q, k, v = (x.reshape(b, t, H, c // H).transpose(0, 2, 1, 3) for x in jnp.split(qkv, 3, axis=-1))
        s = (q @ jnp.swapaxes(k, -1, -2)) / math.sqrt(c // H)
        s = jnp.where(jnp.arange(t)[None, :] > jnp.arange(t)[:, None], jnp.finfo(jnp.float32).min, s)
        y = (jax.nn.softmax(s, axis=-1) @ v).transpose(0, 2, 1, 3).reshape(b, t, c)
        return nn.Dense(c, name="c_proj")(y)


class MLP(nn.Module):
    @nn.compact
    def __call__(self, h):
        h = nn.gelu(nn.Dense(4 * h.shape[-1], name="c_fc")(h), approximate=True)
        return nn.Dense(h.shape[-1] // 4, name="c_proj")(h)


class Block(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = x + Attention(name="attn")(LayerNorm(name="ln_1")(x))
        return x + MLP(name="mlp")(LayerNorm(name="ln_2")(x))


class GPT2(nn.Module):
    @nn.compact
    def __call__(self, ids):
        wte = nn.Embed(V, C, name="wte")
        x = wte(ids) + nn.Embed(BLOCK, C, name="wpe")(jnp.arange(ids.shape[1]))
        for i in range(L):
            x = Block(name=f"h_{i}")(x)
        return wte.attend(LayerNorm(name="ln_f")(x))


def hf_name(path):
    """Flax path tuple -> Hugging Face name (the mapping in the docstring)."""
    parts = [p.replace("h_", "h.", 1) if p.startswith("h_") else p for p in path]
    parts[-1] = {"kernel": "weight", "embedding": "weight"}.get(parts[-1], parts[-1])
    return ".".join(parts)


def flax_loss(tree, ids, targets):
    logits = GPT2().apply({"params": tree}, ids)
    return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, targets))


def plain_loss(p, ids, targets):
    """The same function in plain jax.numpy on the HF-named dict (the cross-check)."""
    return gpt2_loss(p, ids, targets, L, H)


def make_params(shapes):
    """HF name -> float32 array by PARAMS_RULE (math.sin: the C library's sin, as in C++)."""
    out = {}
    for s, name in enumerate(sorted(shapes)):
        base, amp = (1.0, 0.1) if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") \
            or name == "ln_f.weight" else (0.0, 0.01) if name.endswith(".bias") else (0.0, 0.02)
        n = math.prod(shapes[name])
        vals = [base + amp * math.sin(0.001 * (k + 1) * (7 + s) + s) for k in range(n)]
        out[name] = np.asarray(vals, np.float64).astype(np.float32).reshape(shapes[name])
    return out


def gradient_doc(g):
    flat = np.asarray(g, np.float32).reshape(-1)
    g64, k = flat.astype(np.float64), np.arange(1, flat.size + 1, dtype=np.float64)
    doc = {"shape": list(g.shape), "norm": float(np.sqrt(np.sum(g64 * g64))),
           "probes": [float(np.sum(g64 * np.cos(0.013 * k * (j + 1) + j))) for j in range(4)],
           "first": [float(x) for x in flat[:8]], "last": [float(x) for x in flat[-8:]]}
    if flat.size <= 1024:
        doc["values"] = [float(x) for x in flat]
    return doc


def document():
    b, t = np.arange(B)[:, None], np.arange(T)[None, :]
    ids = ((131 * b + 17 * t + 7) % V).astype(np.int32)
    targets = ((131 * b + 17 * (t + 1) + 7) % V).astype(np.int32)
    shapes = jax.eval_shape(lambda: GPT2().init(jax.random.PRNGKey(0), ids))["params"]
    to_hf = {path: hf_name(path) for path in traverse_util.flatten_dict(shapes)}
    hf_shapes = {to_hf[p]: tuple(v.shape) for p, v in traverse_util.flatten_dict(shapes).items()}
    per_block = [f"{m}.{w}" for m in ("ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj")
                 for w in ("weight", "bias")]
    expected = {"wte.weight", "wpe.weight", "ln_f.weight", "ln_f.bias"} | {
        f"h.{i}.{n}" for i in range(L) for n in per_block}
    assert set(hf_shapes) == expected and len(to_hf) == len(expected) == 28, sorted(hf_shapes)
    params = make_params(hf_shapes)
    tree = traverse_util.unflatten_dict({p: jnp.asarray(params[n]) for p, n in to_hf.items()})

    grad_fn = jax.jit(jax.value_and_grad(flax_loss))
    loss, grads = grad_fn(tree, ids, targets)
    plain, plain_grads = jax.jit(jax.value_and_grad(plain_loss))(params, ids, targets)
    loss, plain = float(loss), float(plain)
    assert abs(loss - plain) <= 1e-6 * abs(plain), (loss, plain)
    assert abs(loss - math.log(V)) < 1.0, loss
    grads = {to_hf[p]: np.asarray(g) for p, g in traverse_util.flatten_dict(grads).items()}
    for n, g in grads.items():  # and the same gradients, within 1e-4 of each leaf's largest
        assert np.max(np.abs(g - np.asarray(plain_grads[n]))) <= 1e-4 * np.max(np.abs(g)), n

    steps, p = [], tree
    for _ in range(CONFIG["sgd_steps"]):
        l, g = grad_fn(p, ids, targets)
        steps.append(float(l))
        p = jax.tree_util.tree_map(lambda a, b: (a - np.float32(LR) * b).astype(np.float32), p, g)
    steps.append(float(grad_fn(p, ids, targets)[0]))
    assert steps[0] == loss and steps[-1] < steps[0], steps

    # Mixed precision: the same function with every matmul's operands in bfloat16.
    bf16_loss, bf16_grads = jax.jit(jax.value_and_grad(
        lambda p, i, t: gpt2_loss(p, i, t, L, H, jnp.bfloat16)))(params, ids, targets)
    return {"jax": jax.__version__, "flax": flax.__version__, "optax": optax.__version__,
            "config": CONFIG, "params_rule": PARAMS_RULE, "tokens_rule": TOKENS_RULE, "formulas": FORMULAS,
            "leaf_order": sorted(hf_shapes), "loss": loss, "loss_steps": steps,
            "bf16_loss": float(bf16_loss),
            "gradients": {n: gradient_doc(grads[n]) for n in sorted(grads)},
            "bf16_gradients": {n: gradient_doc(np.asarray(bf16_grads[n])) for n in sorted(grads)}}


def dumps(doc):
    """One top-level key a line, one gradient leaf a line."""
    def j(v):
        return json.dumps(v, separators=(",", ":"))
    lines = [f"{j(k)}:{j(v)}" for k, v in doc.items() if not k.endswith("gradients")]
    for key in ("gradients", "bf16_gradients"):
        lines.append(f'"{key}":{{\n' + ",\n".join(f"{j(k)}:{j(v)}" for k, v in doc[key].items()) + "}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="Writes a tiny GPT-2's loss and gradients.")
    parser.add_argument("--out", default=os.path.join(here, "reference", "gpt2-tiny.json"))
    parser.add_argument("--check", metavar="FILE")
    args = parser.parse_args()
    doc = dumps(document())
    if args.check:
        strip = lambda d: {k: v for k, v in d.items() if k not in ("jax", "flax", "optax")}  # noqa: E731
        with open(args.check) as f:
            if strip(json.load(f)) != strip(json.loads(doc)):
                print(f"{args.check}: differs from what Flax computes now", file=sys.stderr)
                return 1
        print(f"{args.check}: as Flax computes it")
        return 0
    with open(args.out, "w") as f:
        f.write(doc)
    print(f"wrote {args.out}: loss {json.loads(doc)['loss']!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
