#!/usr/bin/env python3
"""Checks that the examples compute what their JAX twins compute.

  check_gradients.py COTANGENT_RUN [--examples DIR]

For each program of gen_reference_residuals.py and each of its variants, runs
`cotangent-run examples/<program>.mlir --fn <program>_<variant> --vjp --split`
on random inputs and compares the loss and every gradient with
jax.value_and_grad of the JAX program. The residual comparison is only
meaningful if the two programs are the same; this is the evidence that they
are. Needs the venv of scripts/jax-venv.sh (it is a `jax`-labelled test).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_reference_residuals as ref  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cotangent_run")
    ap.add_argument("--examples", default=os.path.join(ref.HERE, "..", "..", "examples"))
    opts = ap.parse_args()
    rng = np.random.default_rng(13)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for program, spec in ref.PROGRAMS.items():
            args = [rng.standard_normal(s).astype(np.float32) for s in spec["args"]]
            inputs = []
            for i, a in enumerate(args):
                path = os.path.join(tmp, f"{program}-arg{i}.npy")
                np.save(path, a)
                inputs += ["--input", path]
            for variant, _, fn in ref.variants(spec):
                name = f"{program}_{variant}"
                out = os.path.join(tmp, name)
                os.makedirs(out)
                cmd = [opts.cotangent_run, os.path.join(opts.examples, f"{program}.mlir"), "--fn", name,
                       "--vjp", "--split", "--output-dir", out] + inputs
                run = subprocess.run(cmd, capture_output=True, text=True)
                if run.returncode != 0:
                    print(f"FAIL {name}: cotangent-run exited {run.returncode}\n{run.stdout}{run.stderr}")
                    bad += 1
                    continue
                value, grads = jax.value_and_grad(fn, argnums=tuple(range(len(args))))(*args)
                pairs = [("loss", np.load(os.path.join(out, "output0.npy")), np.asarray(value))]
                pairs += [(f"d/d{fn_arg}", np.load(os.path.join(out, f"gradient{i}.npy")), np.asarray(g))
                          for i, (fn_arg, g) in enumerate(zip(fn_args(spec), grads))]
                errors = [f"{what}: max |ours - JAX| = {np.max(np.abs(ours - want)):.3g}"
                          for what, ours, want in pairs
                          if ours.shape != want.shape or not np.allclose(ours, want, rtol=RTOL, atol=ATOL)]
                if errors:
                    bad += 1
                    print(f"FAIL {name}: " + "; ".join(errors))
                else:
                    print(f"ok {name}: loss {float(value):.6g} and {len(grads)} gradients agree with JAX")
    print(f"{bad} program(s) differ from JAX" if bad else "every example computes what its JAX twin computes")
    return 1 if bad else 0


def fn_args(spec):
    return spec["fn"].__code__.co_varnames[:spec["fn"].__code__.co_argcount]


if __name__ == "__main__":
    sys.exit(main())
