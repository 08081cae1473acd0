"""python -m cotangent_jax MODULE:FUNCTION (--shapes TYPE... | --example MODULE:CALLABLE) [options]

Traces FUNCTION (imported from MODULE, a module name or a .py file) on example arguments and
writes its jx IR, or runs Cotangent on it:

  --shapes f32[4,8] f32[8]     one array argument per type (f32, f64, f16, bf16, i32, i64, bool)
  --example MOD:CALLABLE       CALLABLE() returns the tuple of example arguments (pytrees: Flax
                               parameters, dicts, ...)
  -o FILE                      write the IR there (default: stdout)
  --report                     print Cotangent's saved residuals instead of the IR
  --fwd-bwd                    print the forward and backward side by side
  --grad                       print the value and gradients (reference interpreter; random
                               arguments from --seed unless --example gives them)
  --name NAME                  the function's name in the IR (default: FUNCTION)
  --no-locations               leave out the source locations
"""
import argparse
import importlib
import importlib.util
import os
import re
import sys

import numpy as np


def _load(spec):
    mod, _, attr = spec.rpartition(":")
    if not mod or not attr:
        raise SystemExit(f"cotangent_jax: expected MODULE:NAME, got {spec!r}")
    if mod.endswith(".py") or os.path.sep in mod:
        name = os.path.splitext(os.path.basename(mod))[0]
        s = importlib.util.spec_from_file_location(name, mod)
        if s is None:
            raise SystemExit(f"cotangent_jax: cannot import {mod}")
        m = importlib.util.module_from_spec(s)
        sys.modules[name] = m
        s.loader.exec_module(m)
    else:
        sys.path.insert(0, os.getcwd())
        m = importlib.import_module(mod)
    obj = m
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16", "i32": "int32",
           "i64": "int64", "bool": "bool", "i1": "bool"}


def parse_shape(text):
    """`f32[4,8]` (or `float32[4,8]`, `f32[]`) -> jax.ShapeDtypeStruct."""
    import jax
    import jax.numpy as jnp
    m = re.fullmatch(r"\s*(\w+)\[([\d,\s]*)\]\s*", text)
    if not m:
        raise SystemExit(f"cotangent_jax: cannot read the shape {text!r} (expected e.g. f32[4,8])")
    dtype = _DTYPES.get(m.group(1), m.group(1))
    shape = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
    return jax.ShapeDtypeStruct(shape, jnp.dtype(dtype))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cotangent_jax", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("function", help="MODULE:FUNCTION")
    ap.add_argument("--shapes", nargs="+", metavar="TYPE")
    ap.add_argument("--example", metavar="MODULE:CALLABLE")
    ap.add_argument("-o", "--output")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--fwd-bwd", action="store_true")
    ap.add_argument("--grad", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name")
    ap.add_argument("--no-locations", action="store_true")
    opts = ap.parse_args(argv)

    import jax
    from . import api, errors
    from .export import Module

    fun = _load(opts.function)
    if (opts.shapes is None) == (opts.example is None):
        ap.error("give the arguments by --shapes or by --example (one of the two)")
    if opts.example:
        args = tuple(_load(opts.example)())
    else:
        specs = [parse_shape(s) for s in opts.shapes]
        rng = np.random.default_rng(opts.seed)
        if opts.grad:
            args = tuple(np.asarray(rng.uniform(-1, 1, s.shape)).astype(s.dtype) for s in specs)
        else:
            args = tuple(specs)
    name = opts.name or opts.function.rpartition(":")[2].replace(".", "_")
    try:
        if opts.report:
            api.print_saved_residuals(fun, *args, name=name)
            return 0
        if opts.fwd_bwd:
            print(api.fwd_bwd(fun, *args, name=name), end="")
            return 0
        if opts.grad:
            value, grads = api.grad(fun, *args, name=name)
            print(f"value: {value}")
            for n, g in zip(_names(fun, args), grads):
                print(f"d/d{n}: {np.array2string(np.asarray(g), precision=6, threshold=20)}")
            return 0
        m = Module(locations=not opts.no_locations)
        m.add(fun, *args, name=name)
        text = m.text()
    except (errors.ExportError, errors.ToolError) as e:
        print(f"cotangent_jax: {e}", file=sys.stderr)
        return 1
    if opts.output:
        with open(opts.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _names(fun, args):
    from .export import arg_names
    return arg_names(fun, args)


if __name__ == "__main__":
    sys.exit(main())
