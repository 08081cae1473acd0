#!/usr/bin/env python3
"""A Flax transformer block, exported and compiled: residuals per policy, gradients by cotangent-run.

  flax_transformer.py BIN_DIR

The block of models.py (nn.LayerNorm, nn.MultiHeadDotProductAttention, nn.Dense, nn.gelu, a
named MLP hidden layer) is exported without a checkpoint and under nn.checkpoint with each
policy of models.py. For each, the script prints Cotangent's saved residuals with JAX's count;
for three of them (COMPILED) it compiles the function for the CPU with cotangent-run (--vjp
--split: the forward, the residuals held, the backward on an output cotangent of 1) and
compares the loss and every gradient with jax.value_and_grad: relative error at most 1e-5
(gradients at the scale of the largest gradient entry, as oracle.py measures). Exit status 1
on any difference.
"""
import concurrent.futures
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "cotangent_jax", "src"))
sys.path.insert(0, HERE)
if len(sys.argv) > 1:
    os.environ["COTANGENT_BIN"] = os.path.abspath(sys.argv[1])

import jax  # noqa: E402
import numpy as np  # noqa: E402

import cotangent_jax as cj  # noqa: E402
from cotangent_jax import tools  # noqa: E402
import jax_residuals as jr  # noqa: E402
import models  # noqa: E402

TOL = 1e-5
# cotangent-run compiles each variant for the CPU (seconds each): these three; the residuals are
# reported for every variant.
COMPILED = ("no_remat", "save_only_these_names", "offload_dot_with_no_batch_dims")


def main():
    _, _, args, variants, names = models.flax_transformer_case()
    value, grads = jax.value_and_grad(variants[0][1], argnums=tuple(range(len(args))))(*args)
    want = [np.asarray(value)] + [np.asarray(g) for g in grads]
    grad_scale = max(float(np.max(np.abs(g))) for g in want[1:])
    print(f"Flax transformer block: {len(args) - 1} parameter arrays, x {args[-1].shape}; "
          f"JAX {jax.__version__}")
    bad = 0

    def compile_and_run(variant):
        m = cj.Module()
        m.add(variant[1], *args, name="block", arg_names_=names)
        text = m.text()
        return text, tools.run_compiled(text, "block", args, vjp=True, split=True)
    # Two at a time: the compilations are what takes long.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(COMPILED, pool.map(compile_and_run, [v for v in variants if v[0] in COMPILED])))
    for label, fn in variants:
        m = cj.Module()
        m.add(fn, *args, name="block", arg_names_=names)
        report = tools.saved_residuals_of_module(m.text())["block"]
        jax_res = jr.public_residuals(fn, *args)
        print(f"\n== {label}: Cotangent saves {len(report['residuals'])} residuals, "
              f"{report['total_bytes']} bytes (JAX {len(jax_res)})")
        for r in report["residuals"]:
            print(f"  {r['type']} {cj.api.describe(r)}")
        if label not in runs:
            continue
        _, (out, run_text) = runs[label]
        got = out["outputs"][:1] + out["gradients"]
        errs = []
        for i, (what, a, b) in enumerate(zip(["loss"] + [f"d/d{n}" for n in names], got, want)):
            a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
            scale = max(float(np.max(np.abs(b))), grad_scale if i else 0.0, 1e-30)
            err = float(np.max(np.abs(a - b))) / scale if a.shape == b.shape else float("inf")
            errs.append(err)
            if err > TOL:
                print(f"  FAIL {what}: relative error {err:.3g} (shape {a.shape}, JAX {b.shape})")
                bad += 1
        if len(got) != len(want):
            print(f"  FAIL: cotangent-run gave {len(got)} results, JAX {len(want)}")
            bad += 1
        measured = [line for line in run_text.splitlines() if line.startswith(("residual bytes", "peak bytes"))]
        print(f"  cotangent-run: loss {float(got[0]):.7g} (JAX {float(want[0]):.7g}), {len(got) - 1} gradients, "
              f"worst relative error {max(errs):.2g}; " + "; ".join(measured))
    print("\nFAILED" if bad else "\nPASSED: cotangent-run's gradients equal JAX's (" + ", ".join(COMPILED) + ")")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
