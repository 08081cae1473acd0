"""Running Cotangent's tools on exported IR.

The tools are found in $COTANGENT_BIN, else in build/bin of the checkout this
package sits in (python/cotangent_jax/src/cotangent_jax -> ../../../../build/bin),
else on $PATH. Nothing of Cotangent is compiled into this package.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

from .errors import ToolError
from .export import dense_text, element_type, tensor_type

_HERE = os.path.dirname(os.path.abspath(__file__))


def find_tool(name):
    """The path of a Cotangent tool (cotangent-opt, cotangent-interpret, cotangent-run)."""
    candidates = []
    if os.environ.get("COTANGENT_BIN"):
        candidates.append(os.path.join(os.environ["COTANGENT_BIN"], name))
    candidates.append(os.path.normpath(os.path.join(_HERE, "..", "..", "..", "..", "build", "bin", name)))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which(name)
    if found:
        return found
    raise ToolError(f"{name} not found: set COTANGENT_BIN to the directory that holds it "
                    f"(looked in {', '.join(candidates)} and on PATH)")


def run_tool(name, args, input_text=None):
    cmd = [find_tool(name)] + list(args)
    proc = subprocess.run(cmd, input=input_text, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolError(f"{os.path.basename(cmd[0])} exited {proc.returncode}:\n{proc.stderr}{proc.stdout}")
    return proc.stdout


def read_report(text):
    """{function: its object} of a JSON report (--jx-print-saved-residuals=json,
    --jx-print-memory-plan=json: one array, an object per split)."""
    return {o["function"]: o for o in json.loads(text)}


def saved_residuals_of_module(module_text):
    """{function: residual report (dict)} for every function of a module, after --jx-vjp --jx-remat."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(module_text)
        out = run_tool("cotangent-opt", [path, "--jx-vjp", "--jx-remat",
                                          "--jx-print-saved-residuals=format=json", "-o", os.devnull])
    return read_report(out)


def fwd_bwd_text(module_text, width=None):
    """Forward and backward side by side (--jx-dump-fwd-bwd=syntax=jaxpr)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(module_text)
        opt = "syntax=jaxpr" + (f" width={int(width)}" if width else "")
        return run_tool("cotangent-opt", [path, "--jx-vjp", "--jx-remat", f"--jx-dump-fwd-bwd={opt}",
                                          "-o", os.devnull])


# --- literals printed by cotangent-interpret ---------------------------------------------------

_RESULT_RE = re.compile(r"^result (\d+): (dense<.*>) : tensor<([^>]*)>\s*$")
_NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32, "i64": np.int64,
       "i1": np.bool_}


def _parse_type(t):
    parts = t.split("x")
    return tuple(int(d) for d in parts[:-1]), parts[-1]


def _scalar(tok, et):
    tok = tok.strip()
    if et == "i1":
        return tok == "true" or tok == "1"
    if tok.lower().startswith("0x"):
        bits = int(tok, 16)
        if et == "bf16":
            return np.array([bits << 16], np.uint32).view(np.float32)[0]
        itype = {"f32": np.uint32, "f64": np.uint64, "f16": np.uint16}[et]
        return np.array([bits], itype).view(_NP[et])[0]
    return float(tok) if et.startswith(("f", "bf")) else int(tok)


def parse_dense(lit, type_text):
    """A numpy array from `dense<...>` and the text inside `tensor<...>`."""
    shape, et = _parse_type(type_text)
    body = lit[len("dense<"):-1].strip()
    dtype = np.float32 if et == "bf16" else _NP[et]
    if not body.startswith("["):
        return np.full(shape, _scalar(body, et), dtype=dtype)
    toks = [t for t in re.split(r"[\[\],\s]+", body) if t]
    return np.array([_scalar(t, et) for t in toks], dtype=dtype).reshape(shape)


def parse_results(text):
    """The `result N: dense<...> : tensor<...>` lines of cotangent-interpret, as arrays."""
    out = []
    for line in text.splitlines():
        m = _RESULT_RE.match(line)
        if m:
            out.append(parse_dense(m.group(2), m.group(3)))
    return out


def literal(value):
    """`dense<...> : tensor<...>` of an array, as cotangent-interpret's --arg takes it."""
    arr = np.asarray(value)
    return f"{dense_text(arr, element_type(arr.dtype))} : {tensor_type(arr.shape, arr.dtype)}"


def interpret(module_text, fn, args, ranks=None):
    """Runs `@fn` of a module on the reference interpreter; returns its results as arrays. With
    `ranks=(axis, n)`, runs it as each of n simulated ranks along `axis` (each given `args`) and
    returns each rank's results."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(module_text)
        flags = [f"--ranks={ranks[0]}={int(ranks[1])}"] if ranks else []
        out = run_tool("cotangent-interpret", [path, f"--fn={fn}"] + flags
                       + [f"--arg={literal(a)}" for a in args])
    if not ranks:
        return parse_results(out)
    per_rank = [[] for _ in range(int(ranks[1]))]
    for line in out.splitlines():
        if line.startswith("rank "):  # "rank R result I: dense<...> : tensor<...>"
            rank, _, rest = line[len("rank "):].partition(" ")
            per_rank[int(rank)] += parse_results(rest)
    return per_rank


def split_module(module_text):
    """The module after --jx-vjp --jx-remat (with @f_fwd, @f_bwd, @f_vjp, @f_value_and_grad)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(module_text)
        return run_tool("cotangent-opt", [path, "--jx-vjp", "--jx-remat"])


def run_compiled(module_text, fn, args, vjp=False, split=False):
    """cotangent-run (compiled for the CPU): returns (results as arrays, the tool's text output).

    With vjp and split: the results are the outputs, then the gradients (output cotangents of ones).
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(module_text)
        cmd = [path, "--fn", fn, "--output-dir", os.path.join(tmp, "out")]
        for i, a in enumerate(args):
            p = os.path.join(tmp, f"arg{i}.npy")
            np.save(p, np.asarray(a, order="C"))  # ascontiguousarray would make 0-d arrays 1-d
            cmd += ["--input", p]
        if vjp:
            cmd.append("--vjp")
        if split:
            cmd.append("--split")
        text = run_tool("cotangent-run", cmd)
        outdir = os.path.join(tmp, "out")
        files = sorted(os.listdir(outdir)) if os.path.isdir(outdir) else []

        def load(prefix):
            xs = sorted((f for f in files if re.fullmatch(prefix + r"\d+\.npy", f)),
                        key=lambda f: int(re.search(r"(\d+)\.npy$", f).group(1)))
            return [np.load(os.path.join(outdir, f)) for f in xs]
        if split:
            return {"outputs": load("output"), "gradients": load("gradient")}, text
        return {"results": load("result")}, text
