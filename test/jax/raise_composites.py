#!/usr/bin/env python3
"""GPT-2 written in plain jax.numpy, exported: --jx-raise-composites finds its fused ops.

  raise_composites.py BIN_DIR

gpt2_jax.py's GPT-2 (models/gpt2's tiny preset: 2 layers, 4 heads, width 128, vocabulary 512;
batch 2 x 64), nanoGPT-style attention ([b, h, t, d] after transposes, a tril mask filled with
finfo(float32).min) and optax's integer-label cross-entropy, exported by python/cotangent_jax.
After --jx-raise-composites its IR must hold one causal jx.dot_product_attention per layer, one
jx.softmax_cross_entropy and no softmax left over the scores; cotangent-run --vjp --split (which
raises by default) must give JAX's loss and gradients (relative error at most 1e-5, gradients at
the scale of the largest entry, as oracle.py measures). Exit status 1 on any difference.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "cotangent_jax", "src"))
sys.path.insert(0, HERE)
if len(sys.argv) > 1:
    os.environ["COTANGENT_BIN"] = os.path.abspath(sys.argv[1])

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import cotangent_jax as cj  # noqa: E402
from cotangent_jax import tools  # noqa: E402
from gpt2_jax import gpt2_loss  # noqa: E402

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_default_matmul_precision", "highest")
L, H, C, V, B, T = 2, 4, 128, 512, 2, 64
TOL = 1e-5


def params():
    shapes = {"wte.weight": (V, C), "wpe.weight": (T, C), "ln_f.weight": (C,), "ln_f.bias": (C,)}
    for i in range(L):
        for n, s in [("ln_1.weight", (C,)), ("ln_1.bias", (C,)), ("ln_2.weight", (C,)),
                     ("ln_2.bias", (C,)), ("attn.c_attn.weight", (C, 3 * C)),
                     ("attn.c_attn.bias", (3 * C,)), ("attn.c_proj.weight", (C, C)),
                     ("attn.c_proj.bias", (C,)), ("mlp.c_fc.weight", (C, 4 * C)),
                     ("mlp.c_fc.bias", (4 * C,)), ("mlp.c_proj.weight", (4 * C, C)),
                     ("mlp.c_proj.bias", (C,))]:
            shapes[f"h.{i}.{n}"] = s
    rng = np.random.default_rng(0)
    return {n: jnp.asarray((1.0 if n.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")) else 0.0)
                           + 0.02 * rng.standard_normal(s), jnp.float32) for n, s in shapes.items()}


def main():
    p = params()
    ids = jnp.asarray((131 * np.arange(B)[:, None] + 17 * np.arange(T)[None] + 7) % V, jnp.int32)
    targets = jnp.roll(ids, -1, axis=1)

    def loss(p, ids, targets):
        return gpt2_loss(p, ids, targets, L, H)

    text = cj.to_jx(loss, p, ids, targets, name="loss")
    raised = tools.run_tool("cotangent-opt", ["-", "--jx-raise-composites"], input_text=text)
    bad = 0
    attention = re.findall(r"jx\.dot_product_attention %\S+, %\S+, %\S+, scale = (\S+) causal", raised)
    cross_entropy = raised.count("jx.softmax_cross_entropy ")
    softmax_left = len(re.findall(r"jx\.reduce_max %\S+, axes = \[3\] : tensor<\d+x\d+x\d+x\d+xf32>", raised))
    print(f"raised: {len(attention)} causal attention (scale {', '.join(attention)}), "
          f"{cross_entropy} cross-entropy, {softmax_left} softmax over 4-D scores left")
    if len(attention) != L or any(abs(float(s) - 1 / np.sqrt(C // H)) > 1e-7 for s in attention):
        print(f"FAIL: expected {L} causal jx.dot_product_attention of scale 1/sqrt({C // H})")
        bad += 1
    if cross_entropy != 1 or softmax_left:
        print("FAIL: expected one jx.softmax_cross_entropy and no softmax left over the scores")
        bad += 1

    value, grads = jax.value_and_grad(loss)(p, ids, targets)
    want = [np.asarray(value)] + [np.asarray(g) for g in jax.tree_util.tree_leaves(grads)]
    args = jax.tree_util.tree_leaves((p, ids, targets))
    out, run_text = tools.run_compiled(text, "loss", args, vjp=True, split=True)
    got = out["outputs"][:1] + out["gradients"][:len(want) - 1]
    grad_scale = max(float(np.max(np.abs(g))) for g in want[1:])
    worst = 0.0
    for i, (a, b) in enumerate(zip(got, want)):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        scale = max(float(np.max(np.abs(b))), grad_scale if i else 0.0, 1e-30)
        err = float(np.max(np.abs(a - b))) / scale if a.shape == b.shape else float("inf")
        worst = max(worst, err)
    if len(got) != len(want) or worst > TOL:
        print(f"FAIL: cotangent-run's loss and gradients differ from JAX's: worst relative error "
              f"{worst:.3g} ({len(got)} results, JAX {len(want)})")
        bad += 1
    print(f"cotangent-run (raised): loss {float(got[0]):.7g} (JAX {float(want[0]):.7g}), "
          f"worst relative error {worst:.2g}")
    print("FAILED" if bad else "PASSED: the exported GPT-2 raises into the fused ops and keeps JAX's values")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
