"""What Cotangent says about a JAX function: its saved residuals, its forward and backward,
its gradient (the tools run on the IR that to_jx writes)."""
import numpy as np

from . import tools
from .export import Module


def _module(fun, args, name):
    m = Module()
    name = m.add(fun, *args, name=name)
    return m.text(), name


def saved_residuals(fun, *args, name=None):
    """Cotangent's saved residuals of `fun` after --jx-vjp --jx-remat, as JAX's
    `saved_residuals` gives them: a list of (type, description) pairs (`("f32[4,8]", "from the
    argument params.Dense_0.kernel")`); offloaded ones end with `[offloaded to pinned_host]`."""
    text, name = _module(fun, args, name)
    report = tools.saved_residuals_of_module(text)[name]
    return [(r["type"], describe(r)) for r in report["residuals"]]


def describe(r):
    """One residual of the JSON report in the words of print_saved_residuals."""
    kind, what = r.get("kind"), r.get("what", "")
    loc = f" from {r['location']}" if r.get("location") else ""
    if kind == "argument":
        text = f"from the argument {what}"
    elif kind == "named":
        text = f"named '{what}'{loc}"
    else:
        text = f"output of {what}{loc}"
    if r.get("stacked_from"):
        text += f" (stacked: {r['stacked_from']})"
    if r.get("memory_kind"):
        text += f" [offloaded to {r['memory_kind']}]"
    return text


def print_saved_residuals(fun, *args, name=None):
    """Prints Cotangent's saved residuals of `fun`, one per line, then a total; returns the list."""
    res = saved_residuals(fun, *args, name=name)
    for t, d in res:
        print(f"{t} {d}")
    total = sum(_bytes(t) for t, _ in res)
    print(f"total: {len(res)} residuals, {total} bytes")
    return res


_ELEMENT_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "bool": 1, "i1": 1}


def _bytes(t):
    et, _, dims = t.partition("[")
    n = 1
    for d in filter(None, dims.rstrip("]").split(",")):
        n *= int(d)
    return n * _ELEMENT_BYTES.get(et, 0)


def fwd_bwd(fun, *args, name=None, width=None):
    """The forward and backward of `fun` side by side, as jaxprs (--jx-dump-fwd-bwd)."""
    text, _ = _module(fun, args, name)
    return tools.fwd_bwd_text(text, width=width)


def grad(fun, *args, name=None, compiled=False):
    """(value, gradients) of a scalar `fun` with respect to every flattened argument, computed by
    Cotangent: @f_value_and_grad on the reference interpreter, or with `compiled` by cotangent-run
    (compiled for the CPU, output cotangent 1). The gradients come as a flat list, in the order of
    jax.tree_util.tree_leaves(args)."""
    import jax
    text, name = _module(fun, args, name)
    leaves = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
    if compiled:
        out, _ = tools.run_compiled(text, name, leaves, vjp=True, split=True)
        return out["outputs"][0], out["gradients"]
    split = tools.split_module(text)
    results = tools.interpret(split, f"{name}_value_and_grad", leaves)
    return results[0], results[1:]
