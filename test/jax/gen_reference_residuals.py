#!/usr/bin/env python3
"""Writes JAX's saved residuals for the layer-norm and attention examples.

JAX is Cotangent's oracle, not its dependency: this script is run by hand (or
by the `jax`-labelled ctest test) in the venv that scripts/jax-venv.sh makes,
and its output, test/jax/reference/<program>-<variant>.json, is committed. The
default test suite compares Cotangent's report with those files without
Python packages (test/jax/compare_residuals.py uses the standard library).

The programs here are the JAX spelling of examples/layer_norm.mlir and
examples/attention.mlir, primitive for primitive: where JAX broadcasts a
size-1 axis or a scalar literal implicitly, the jx IR has an explicit
jx.broadcast_in_dim or a jx.constant of the full shape (jx has no implicit
broadcasting). Each program is differentiated with jax.vjp four ways: without
jax.checkpoint, and under jax.checkpoint with nothing_saveable, dots_saveable
and save_only_these_names. The function in the .mlir file for a variant is
named <program>_<variant>.

  gen_reference_residuals.py [--out DIR]      write the references (default: beside this script)
  gen_reference_residuals.py --check DIR      regenerate and compare with DIR; exit 1 on a difference
"""
import argparse
import contextlib
import io
import json
import os
import re
import sys

import jax
import jax.numpy as jnp
from jax import lax
from jax.ad_checkpoint import checkpoint_name, print_saved_residuals

HERE = os.path.dirname(os.path.abspath(__file__))
POLICIES = jax.checkpoint_policies


# --- layer norm: x f32[4,8], scale/bias f32[8]; examples/layer_norm.mlir ----------------------

def layer_norm(x, scale, bias):
    mean = checkpoint_name(jnp.mean(x, axis=-1, keepdims=True), "mean")   # f32[4,1]
    xc = checkpoint_name(x - mean, "xc")                                   # f32[4,8]
    var = jnp.mean(xc * xc, axis=-1, keepdims=True)                        # f32[4,1]
    inv = checkpoint_name(lax.rsqrt(var + 1e-5), "inv")                    # f32[4,1]
    y = xc * inv * scale + bias
    return jnp.sum(y)


# --- attention: x f32[4,8], Wq/Wk/Wv/Wo f32[8,8], two heads of 4; examples/attention.mlir -------

SEQ, MODEL, HEADS = 4, 8, 2
HEAD = MODEL // HEADS


def attention(x, wq, wk, wv, wo):
    q = checkpoint_name(x @ wq, "q")                                       # f32[4,8]
    k = checkpoint_name(x @ wk, "k")
    v = checkpoint_name(x @ wv, "v")
    q = q.reshape(SEQ, HEADS, HEAD)                                        # f32[4,2,4]
    k = k.reshape(SEQ, HEADS, HEAD)
    v = v.reshape(SEQ, HEADS, HEAD)
    # scores[h, i, j] = q[i, h, :] . k[j, h, :]
    s = lax.dot_general(q, k, (((2,), (2,)), ((1,), (1,))))                # f32[2,4,4]
    s = s * (1.0 / HEAD ** 0.5)
    m = lax.stop_gradient(jnp.max(s, axis=-1, keepdims=True))              # f32[2,4,1]
    e = jnp.exp(s - m)
    p = e / jnp.sum(e, axis=-1, keepdims=True)                             # softmax over keys
    # o[h, i, d] = sum_j p[h, i, j] v[j, h, d]
    o = lax.dot_general(p, v, (((2,), (0,)), ((0,), (1,))))                # f32[2,4,4]
    o = o.transpose(1, 0, 2).reshape(SEQ, MODEL)                           # f32[4,8]
    return jnp.sum(o @ wo)


PROGRAMS = {
    "layer_norm": {
        "fn": layer_norm,
        "args": [(4, 8), (8,), (8,)],
        "names": ("mean", "inv"),
    },
    "attention": {
        "fn": attention,
        "args": [(SEQ, MODEL)] + [(MODEL, MODEL)] * 4,
        "names": ("q", "k", "v"),
    },
}


def variants(spec):
    """(variant name, the #jx.policy spelling or None, the function to differentiate)."""
    fn = spec["fn"]
    names = spec["names"]
    quoted = ", ".join(f'"{n}"' for n in names)
    yield "no_remat", None, fn
    yield "nothing_saveable", "nothing_saveable", jax.checkpoint(fn, policy=POLICIES.nothing_saveable)
    yield "dots_saveable", "dots_saveable", jax.checkpoint(fn, policy=POLICIES.dots_saveable)
    yield ("save_only_these_names", f"save_only_these_names({quoted})",
           jax.checkpoint(fn, policy=POLICIES.save_only_these_names(*names)))


ELEMENT_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "bool": 1}
TYPE_RE = re.compile(r"^(\w+)\[([\d,]*)\]$")


def type_bytes(t):
    m = TYPE_RE.match(t)
    if not m or m.group(1) not in ELEMENT_BYTES:
        raise ValueError(f"unexpected residual type {t!r}")
    n = 1
    for d in filter(None, m.group(2).split(",")):
        n *= int(d)
    return n * ELEMENT_BYTES[m.group(1)]


def classify(src):
    """JAX's description of a residual -> (kind, what), in the vocabulary of Cotangent's report."""
    for pattern, kind in [(r"^from the argument (.+)$", "argument"),
                          (r"^named '(.+?)' from ", "named"),
                          (r"^output of jitted function '(.+?)' from ", "jit"),
                          (r"^output of (\S+) from ", "output")]:
        m = re.match(pattern, src)
        if m:
            return kind, m.group(1)
    if src == "from a literal":
        return "literal", ""
    if src == "from a constant":
        return "constant", ""
    raise ValueError(f"unexpected residual description {src!r}")


def residuals(fn, shapes):
    """JAX's saved residuals of fn, through the public print_saved_residuals."""
    args = [jnp.zeros(s, jnp.float32) for s in shapes]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_saved_residuals(fn, *args)
    out = []
    for line in buf.getvalue().splitlines():
        ty, src = line.split(" ", 1)
        kind, what = classify(src)
        out.append({"type": ty, "bytes": type_bytes(ty), "kind": kind, "what": what})
    return out


def references():
    for program, spec in PROGRAMS.items():
        for variant, policy, fn in variants(spec):
            res = residuals(fn, spec["args"])
            yield f"{program}-{variant}.json", {
                "function": f"{program}_{variant}",
                "policy": policy,
                "jax_version": jax.__version__,
                "residuals": res,
                "count": len(res),
                "total_bytes": sum(r["bytes"] for r in res),
            }


def dump(obj):
    return json.dumps(obj, indent=2, sort_keys=True) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "reference"))
    ap.add_argument("--check", metavar="DIR", help="compare with the references in DIR instead of writing")
    opts = ap.parse_args()
    if opts.check:
        bad = 0
        for file, ref in references():
            path = os.path.join(opts.check, file)
            try:
                with open(path) as f:
                    committed = json.load(f)
            except OSError as e:
                print(f"{file}: cannot read the committed reference: {e}")
                bad += 1
                continue
            # The JAX version is provenance; everything else must match.
            ref.pop("jax_version")
            committed.pop("jax_version", None)
            if committed != ref:
                bad += 1
                print(f"{file}: JAX {jax.__version__} now gives\n{dump(ref)}the committed file has\n{dump(committed)}")
            else:
                print(f"{file}: same as JAX {jax.__version__} ({ref['count']} residuals)")
        if bad:
            print(f"{bad} reference(s) differ; regenerate with {os.path.relpath(__file__)} and review the diff")
            return 1
        return 0
    os.makedirs(opts.out, exist_ok=True)
    for file, ref in references():
        with open(os.path.join(opts.out, file), "w") as f:
            f.write(dump(ref))
        print(f"wrote {os.path.join(opts.out, file)} ({ref['count']} residuals)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
