#!/usr/bin/env python3
"""JAX as the oracle: random programs and real models, each under several policies.

  oracle.py --bin BUILD/bin [--programs N] [--seed S] [--only NAME] [--verbose] [--jobs J]

For every case (a JAX function of float arrays returning a scalar loss) and
every variant of it (no checkpoint, or the whole function under one
jax.checkpoint policy; the Flax models put the policy on nn.checkpoint), the
suite

1. exports the variant with cotangent_jax (one module for many functions, so
   cotangent-opt runs a few times in all, not once per function);
2. compares Cotangent's saved residuals (--jx-vjp --jx-remat
   --jx-print-saved-residuals=json) with JAX's saved_residuals (what
   jax.ad_checkpoint.print_saved_residuals prints): the same count and the
   same multiset of types. When they differ, JAX's residuals are rewritten by
   the rules docs/policies.md documents (jax_residuals.py), and a function
   whose residuals then agree counts as a *documented difference*, printed
   with the paragraph it cites. Functions listed in oracle_differences.json
   (the single-op probes and the models, whose VJP rules differ from JAX's in
   documented ways, or where Cotangent has a known bug) must differ exactly as
   listed; anything else is a mismatch;
3. runs @f_value_and_grad of every variant on the reference interpreter
   (cotangent-interpret, one run per case through a driver function that
   calls its variants) and compares the loss and every gradient with
   jax.value_and_grad: relative error (max |ours - JAX| / max |JAX|) at most
   1e-5 for float32, 1e-12 for float64.

Exit status: 0 when there is no gradient mismatch, no residual mismatch and
no known bug; 1 otherwise. A known bug (listed with "bug": true and the
paragraph of docs/jax.md that gives its reproducer) is counted and printed
apart, and fails the run until it is fixed and its entry removed.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python", "cotangent_jax", "src"))
sys.path.insert(0, HERE)

# XLA compiles JAX's side at its lowest optimization level: the same arithmetic, compiled faster.
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true "
                      "--xla_cpu_use_fusion_emitters=false")

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax._src import core as jax_core  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

import cotangent_jax as cj  # noqa: E402
from cotangent_jax import tools  # noqa: E402
import jax_residuals as jr  # noqa: E402
import random_programs  # noqa: E402
import compare_residuals as compare_residuals_lib  # noqa: E402

P = jax.checkpoint_policies
TOL = {"float32": 1e-5, "float64": 1e-12}


class Variant:
    def __init__(self, case, label, fn):
        self.case, self.label, self.fn = case, label, fn
        self.function = f"{case.name}__{label}"


class Case:
    """A JAX function and its example arguments; `variants` are (label, function) pairs."""

    def __init__(self, name, fn, args, variants, kind, source=None, arg_names=None):
        self.name, self.fn, self.args, self.kind, self.source = name, fn, args, kind, source
        self.arg_names = arg_names
        self.variants = [Variant(self, label, f) for label, f in variants]


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------

def program_variants(prog, index):
    """No checkpoint plus four policies on the whole program (the fourth rotates)."""
    names = prog["names"] or ["a"]
    rotating = [
        ("everything_saveable", P.everything_saveable),
        ("dots_with_no_batch_dims_saveable", P.dots_with_no_batch_dims_saveable),
        ("save_any_names_but_these", P.save_any_names_but_these(names[0])),
        ("save_from_both_policies", P.save_from_both_policies(P.dots_with_no_batch_dims_saveable,
                                                              P.save_only_these_names(*names))),
        ("offload_dot_with_no_batch_dims", P.offload_dot_with_no_batch_dims("device", "pinned_host")),
        ("save_and_offload_only_these_names", P.save_and_offload_only_these_names(
            names_which_can_be_saved=names[:1], names_which_can_be_offloaded=names[1:],
            offload_src="device", offload_dst="pinned_host")),
        ("save_anything_except_these_names", cj.policies.save_anything_except_these_names(names[0])),
    ]
    if {"scan", "cond"} & set(prog["features"]):
        # JAX's checkpoint keeps a scan's initial carry and a cond's operands apart when the policy
        # saves what is inside them; op_probes.py lists those cases.
        rotating = [x for x in rotating if x[0] not in ("everything_saveable", "save_anything_except_these_names")]
    label, pol = rotating[index % len(rotating)]
    policies = [
        ("nothing_saveable", P.nothing_saveable),
        ("dots_saveable", P.dots_saveable),
        ("save_only_these_names", P.save_only_these_names(*names)),
        (label, pol),
    ]
    out = [("no_remat", random_programs.compile_program(prog))]
    for label, pol in policies:
        out.append((label, jax.checkpoint(random_programs.compile_program(prog, inner=pol), policy=pol)))
    return out


def random_cases(n, seed):
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        dtype = "float64" if i % 10 == 9 else "float32"
        prog = random_programs.make_program(seed * 100003 + i, dtype)
        args = [rng.uniform(-1, 1, shape).astype(dtype) for _, shape in prog["args"]]
        variants = program_variants(prog, i)
        source = prog["source"] + (f"INNER = [{', '.join(prog['inner'])}]  (no_remat; else the outer policy)\n"
                                   if prog["inner"] else "")
        cases.append(Case(f"prog{i}", variants[0][1], args, variants, "random", source=source))
    return cases


def all_cases(opts):
    cases = []
    if opts.programs:
        cases += random_cases(opts.programs, opts.seed)
    if opts.probes:
        import op_probes
        cases += [Case(name, fn, args, variants, "probe") for name, fn, args, variants in op_probes.cases()]
    if opts.models:
        import models
        cases += [Case(name, fn, args, variants, "model", arg_names=names)
                  for name, fn, args, variants, names in models.cases()]
    if opts.only:
        cases = [c for c in cases if c.name in opts.only]
    return cases


# ---------------------------------------------------------------------------------------------
# Our side: export, residuals, gradients
# ---------------------------------------------------------------------------------------------

def export(variants):
    """{function: IR text of that function} and {function: export error}."""
    texts, errors = {}, {}
    for v in variants:
        m = cj.Module(locations=True)
        try:
            m.add(v.fn, *v.case.args, name=v.function, arg_names_=v.case.arg_names)
        except Exception as e:  # the suite reports every failure; it never stops at the first
            errors[v.function] = f"{type(e).__name__}: {e}"
            continue
        texts[v.function] = m.functions[0]
    return texts, errors


def module_of(function_texts):
    return "module {\n" + "\n\n".join(function_texts) + "\n}\n"


def _opt(bin_dir, path, args):
    return subprocess.run([os.path.join(bin_dir, "cotangent-opt"), path] + args, capture_output=True, text=True)


def split_chunk(bin_dir, tmp, tag, names, texts):
    """Runs --jx-vjp --jx-remat (+ the JSON report) on one module of functions.

    Returns ({function: report}, {name: text of each function after the split}, {function: error}). When the module
    fails as a whole, halves it until each failing function is found on its own.
    """
    path = os.path.join(tmp, f"{tag}.mlir")
    with open(path, "w") as f:
        f.write(module_of([texts[n] for n in names]))
    split_path = os.path.join(tmp, f"{tag}.split.mlir")
    proc = _opt(bin_dir, path, ["--jx-vjp", "--jx-remat", "--jx-print-saved-residuals=format=json",
                                "-o", split_path])
    if proc.returncode == 0:
        reports = tools.read_report(proc.stdout)
        with open(split_path) as f:
            return reports, functions_of(f.read()), {}
    if len(names) == 1:
        return {}, {}, {names[0]: proc.stderr.strip()[-3000:]}
    half = len(names) // 2
    r1, s1, e1 = split_chunk(bin_dir, tmp, tag + "a", names[:half], texts)
    r2, s2, e2 = split_chunk(bin_dir, tmp, tag + "b", names[half:], texts)
    r1.update(r2)
    e1.update(e2)
    s1.update(s2)
    return r1, s1, e1


def functions_of(split_text):
    """{name: text} of the top-level functions of a module printed by cotangent-opt."""
    out, name, lines = {}, None, []
    for line in split_text.splitlines():
        if line.startswith("  func.func @"):
            name = line[len("  func.func @"):].split("(", 1)[0]
            lines = [line]
        elif name is not None:
            lines.append(line)
            if line == "  }":
                out[name] = "\n".join(lines)
                name = None
    return out


def _tensor(arr):
    return cj.export.tensor_type(arr.shape, arr.dtype)


def _interpret(bin_dir, path, fn, args=()):
    proc = subprocess.run([os.path.join(bin_dir, "cotangent-interpret"), path, f"--fn={fn}"]
                          + [f"--arg={tools.literal(a)}" for a in args], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, (proc.stderr or proc.stdout or f"exit status {proc.returncode}").strip()[-3000:]
    return tools.parse_results(proc.stdout), None


def run_case_gradients(bin_dir, tmp, case, functions, split_functions):
    """{function: [loss, grads...]} and {function: error} for the variants of one case.

    All of a case's variants run in one cotangent-interpret process, through a driver function
    that calls each @..._value_and_grad on the case's arguments. When that run fails, each variant
    runs alone, so that a failure names its function. (A driver over many more functions can read
    freed memory in the interpreter: runtime/interpreter/Interpreter.cpp, Evaluator::getLastUses,
    returns a reference into a DenseMap that the calls it makes may grow.)
    """
    parts, ready = [], []
    for fn in functions:
        texts = [split_functions.get(f"{fn}{sfx}") for sfx in ("", "_fwd", "_bwd", "_vjp", "_value_and_grad")]
        if all(t is not None for t in texts):
            parts += texts
            ready.append(fn)
    out, errors = {}, {fn: "cotangent-opt made no @..._value_and_grad" for fn in functions if fn not in ready}
    if not ready:
        return out, errors
    lines, consts = [], []
    for i, a in enumerate(case.args):
        consts.append(f"%a{i}")
        lines.append(f"    %a{i} = jx.constant {cj.export.dense_text(a, cj.export.element_type(a.dtype))} : {_tensor(a)}")
    rtypes = [_tensor(np.zeros((), case.args[0].dtype))] + [_tensor(a) for a in case.args]
    results = []
    for k, fn in enumerate(ready):
        lines.append(f"    %r{k}:{len(rtypes)} = call @{fn}_value_and_grad({', '.join(consts)}) : "
                     f"({', '.join(_tensor(a) for a in case.args)}) -> ({', '.join(rtypes)})")
        results += [f"%r{k}#{i}" for i in range(len(rtypes))]
    all_types = rtypes * len(ready)
    driver = (f"  func.func @__oracle_driver() -> ({', '.join(all_types)}) {{\n" + "\n".join(lines)
              + f"\n    return {', '.join(results)} : {', '.join(all_types)}\n  }}")
    path = os.path.join(tmp, f"{case.name}.grad.mlir")
    with open(path, "w") as f:
        f.write(module_of(parts + [driver]))
    values, err = _interpret(bin_dir, path, "__oracle_driver")
    if err is None and len(values) == len(all_types):
        n = len(rtypes)
        for k, fn in enumerate(ready):
            out[fn] = values[k * n:(k + 1) * n]
        return out, errors
    for fn in ready:
        path = os.path.join(tmp, f"{fn}.grad.mlir")
        with open(path, "w") as f:
            f.write(module_of([split_functions[f"{fn}{sfx}"] for sfx in ("", "_fwd", "_bwd", "_vjp", "_value_and_grad")]))
        values, err = _interpret(bin_dir, path, f"{fn}_value_and_grad", case.args)
        if err:
            errors[fn] = err
        else:
            out[fn] = values
    return out, errors


# ---------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------

def fmt_types(ts):
    c = collections.Counter(ts)
    return ", ".join(f"{n}x {t}" if n > 1 else t for t, n in sorted(c.items())) or "nothing"


def compare_residuals(v, ours_report, listed, jax_pub):
    """('exact' | 'documented' | 'listed' | 'bug' | 'mismatch', detail lines, cited sections).

    `jax_pub` is JAX's saved_residuals of the variant."""
    # An offloaded residual: JAX writes f32<host>[4], Cotangent f32[4] with a memory_kind.
    jax_types = [jr.plain_type(t) for t, _ in jax_pub]
    ours = [r["type"] for r in ours_report["residuals"]]
    jax_off = sorted(jr.plain_type(t) for t, _ in jax_pub if jr.is_offloaded(t))
    ours_off = sorted(r["type"] for r in ours_report["residuals"] if r.get("memory_kind"))
    entry = listed.get(v.function)
    detail = []
    if entry is not None:
        want = collections.Counter(jax_types)
        drop, add = collections.Counter(entry["jax"]), collections.Counter(entry["ours"])
        occurs = (want & drop) == drop
        want = want - drop + add
        if occurs and want == collections.Counter(ours) and len(ours) == sum(want.values()):
            kind = "bug" if entry.get("bug") else "listed"
            return kind, [f"{entry['section']}: JAX {fmt_types(entry['jax'])} -> ours {fmt_types(entry['ours'])}"], \
                [entry["section"]]
        detail.append(f"listed difference ({entry['section']}) does not hold: JAX "
                      f"{fmt_types(entry['jax'])} -> ours {fmt_types(entry['ours'])}")
    elif jax_off != ours_off:
        detail.append(f"offloaded: JAX {fmt_types(jax_off)}, Cotangent {fmt_types(ours_off)}")
    elif collections.Counter(jax_types) == collections.Counter(ours):
        return "exact", [], []
    elif collections.Counter(t for t, s in zip(jax_types, jax_pub) if s[1] != "from a literal") == \
            collections.Counter(ours):
        # Only literals apart (a dead loop's constants JAX keeps): the constants rule alone,
        # before the heuristic rewrites that might misread what remains.
        lits = [t for t, s in zip(jax_types, jax_pub) if s[1] == "from a literal"]
        return "documented", [f"{jr.SECTION_CONSTANTS}: JAX {fmt_types(lits)} -> ours nothing"], \
            [jr.SECTION_CONSTANTS]
    else:
        types, applied = jr.apply_rules(jr.residual_nodes(v.fn, *v.case.args), ours,
                                        in_checkpoint=v.label != "no_remat")
        if collections.Counter(types) == collections.Counter(ours):
            lines = [f"{s}: JAX {fmt_types(d)} -> ours {fmt_types(a)}" for s, (d, a) in applied.items()]
            return "documented", lines, list(applied)
        detail.append(f"after the documented rules JAX would keep {fmt_types(types)}")
    detail.append("JAX (saved_residuals):")
    detail += [f"    {t} {s}" for t, s in jax_pub]
    detail.append("Cotangent (--jx-print-saved-residuals):")
    detail += [f"    {r['type']} {describe(r)}" for r in ours_report["residuals"]]
    jc, oc = collections.Counter(jax_types), collections.Counter(ours)
    detail.append(f"JAX only: {fmt_types(list((jc - oc).elements()))}; "
                  f"Cotangent only: {fmt_types(list((oc - jc).elements()))}")
    return "mismatch", detail, []


def describe(r):
    kind, what = r.get("kind"), r.get("what", "")
    loc = f" from {r['location']}" if r.get("location") else ""
    if kind == "argument":
        return f"from the argument {what}"
    if kind == "named":
        return f"named '{what}'{loc}"
    return f"output of {what}{loc}" + (f" [stacked: {r['stacked_from']}]" if r.get("stacked_from") else "")


def compare_gradients(v, ours, ref):
    dtype = str(v.case.args[0].dtype)
    tol = TOL[dtype]
    worst, bad = 0.0, []
    names = ["loss"] + [f"d/d{n}" for n in (v.case.arg_names or
                                             [f"arg{i}" for i in range(len(v.case.args))])]
    if len(ours) != len(ref):
        return [f"{len(ours)} results, JAX has {len(ref)}"], float("inf")
    # The loss against itself; each gradient against the largest entry of all the gradients
    # (a norm-wise relative error of the whole gradient: a gradient that is zero in exact
    # arithmetic, as an attention key bias's, is compared at the scale of the others).
    grad_scale = max([float(np.max(np.abs(np.asarray(g, np.float64)))) for g in ref[1:] if np.size(g)] + [0.0])
    for i, (what, a, b) in enumerate(zip(names, ours, ref)):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape:
            bad.append(f"{what}: shape {a.shape}, JAX {b.shape}")
            continue
        scale = max(float(np.max(np.abs(b))) if b.size else 0.0, grad_scale if i else 0.0, 1e-30)
        err = float(np.max(np.abs(a - b))) / scale if b.size else 0.0
        if not np.isfinite(err):
            err = float("inf")
        worst = max(worst, err)
        if err > tol:
            bad.append(f"{what}: relative error {err:.3g} > {tol:g}")
    return bad, worst


def uses_16_bit_floats(case):
    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            for v in list(eqn.invars) + list(eqn.outvars):
                if getattr(getattr(v, "aval", None), "dtype", None) in (jnp.float16, jnp.bfloat16):
                    return True
            for sub in jax_core.jaxprs_in_params(eqn.params):
                if walk(sub):
                    return True
        return False
    return walk(jax.make_jaxpr(case.fn)(*case.args).jaxpr)


def jax_value_and_grad(cases, group=25):
    """{case: [loss, grads...]} from jax.value_and_grad, or {case: error}.

    Many cases are compiled as one jitted function (XLA compiles one large program faster than
    many small ones; each case stays its own computation inside it).
    """
    out, errors = {}, {}
    # XLA on the CPU computes float16 and bfloat16 elementwise ops in float32 without rounding
    # in between; the cases that use them run op by op, which rounds each result as written.
    narrow = [c for c in cases if uses_16_bit_floats(c)]
    for c in narrow:
        try:
            value, grads = jax.value_and_grad(c.fn, argnums=tuple(range(len(c.args))))(*c.args)
            out[c.name] = [np.asarray(value)] + [np.asarray(g) for g in grads]
        except Exception as e:
            errors[c.name] = f"{type(e).__name__}: {e}"
    cases = [c for c in cases if c not in narrow]
    for i in range(0, len(cases), group):
        batch = cases[i:i + group]

        def all_grads(all_args, batch=batch):
            return [jax.value_and_grad(c.fn, argnums=tuple(range(len(c.args))))(*a)
                    for c, a in zip(batch, all_args)]
        try:
            results = jax.jit(all_grads)([c.args for c in batch])
            pairs = list(zip(batch, results))
        except Exception:
            pairs = []
            for c in batch:  # one at a time, to tell which case fails
                try:
                    pairs.append((c, jax.jit(jax.value_and_grad(c.fn, argnums=tuple(range(len(c.args)))))(*c.args)))
                except Exception as e:
                    errors[c.name] = f"{type(e).__name__}: {e}"
        for c, (value, grads) in pairs:
            out[c.name] = [np.asarray(value)] + [np.asarray(g) for g in grads]
    return out, errors


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the directory of cotangent-opt and cotangent-interpret")
    ap.add_argument("--programs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-probes", dest="probes", action="store_false")
    ap.add_argument("--no-models", dest="models", action="store_false")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=200, help="functions per cotangent-opt run")
    ap.add_argument("--differences", default=os.path.join(HERE, "oracle_differences.json"))
    ap.add_argument("--keep", help="keep the generated modules in this directory")
    opts = ap.parse_args()
    t0 = time.time()
    with open(opts.differences) as f:
        listed = {d["function"]: d for d in json.load(f)}
    for section, doc in jr.RULES.items():
        if not docs_has_section(doc, section):
            print(f"FAIL: the rule '{section}' cites {doc}, which has no such paragraph")
            return 1
    for d in listed.values():
        if not docs_has_section(d["doc"], d["section"]):
            print(f"FAIL: {opts.differences} cites '{d['section']}' in {d['doc']}, which has no such paragraph")
            return 1

    cases = all_cases(opts)
    variants = [v for c in cases for v in c.variants]
    texts, export_errors = export(variants)
    t_export = time.time()

    names = [v.function for v in variants if v.function in texts]
    chunks = [names[i:i + opts.chunk] for i in range(0, len(names), opts.chunk)]
    reports, opt_errors, grads, grad_errors = {}, {}, {}, {}
    by_name = {v.function: v for v in variants}
    tmp_ctx = tempfile.TemporaryDirectory()
    tmp = opts.keep or tmp_ctx.name
    os.makedirs(tmp, exist_ok=True)

    split_functions = {}
    by_case = collections.defaultdict(list)
    for n in names:
        by_case[by_name[n].case.name].append(n)
    case_of = {c.name: c for c in cases}

    def split_work(i):
        return split_chunk(opts.bin, tmp, f"chunk{i}", chunks[i], texts)

    def grad_work(case_name, fns):
        return run_case_gradients(opts.bin, tmp, case_of[case_name], fns, split_functions)

    # cotangent-opt, then cotangent-interpret, run in the pool while this thread asks JAX for its
    # gradients and residuals: the two sides overlap.
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for r, sf, e in pool.map(split_work, range(len(chunks))):
            reports.update(r)
            split_functions.update(sf)
            opt_errors.update(e)
        t_split = time.time()
        grad_futures = [pool.submit(grad_work, case_name, [fn for fn in fns if fn in reports])
                        for case_name, fns in by_case.items()]
        jax_grads, jax_errors = jax_value_and_grad(cases)
        t_jax = time.time()
        jax_res = {}
        for v in variants:
            if v.function in reports:
                jax_res[v.function] = jr.public_residuals(v.fn, *v.case.args)
        t_res = time.time()
        for fut in grad_futures:
            g, ge = fut.result()
            grads.update(g)
            grad_errors.update(ge)
    t_tools = time.time()

    counts = collections.Counter()
    sections = collections.Counter()
    per_policy = collections.defaultdict(collections.Counter)
    failures, bugs, documented = [], [], []
    worst = {"float32": 0.0, "float64": 0.0}
    for v in variants:
        fn = v.function
        kind = v.case.kind
        if fn in export_errors:
            failures.append((fn, "export failed", [export_errors[fn]]))
            counts["export_error"] += 1
            continue
        if fn in opt_errors:
            failures.append((fn, "cotangent-opt failed", [opt_errors[fn]]))
            counts["opt_error"] += 1
            continue
        status, detail, cited = compare_residuals(v, reports[fn], listed, jax_res[fn])
        counts[f"res_{status}"] += 1
        per_policy[v.label][status] += 1
        if status in ("documented", "listed"):
            for s in cited:
                sections[s] += 1
            documented.append((fn, detail))
        elif status == "bug":
            bugs.append((fn, detail))
        elif status == "mismatch":
            failures.append((fn, "residual mismatch", detail))
        if v.case.name in jax_errors:
            failures.append((fn, "JAX failed", [jax_errors[v.case.name]]))
            counts["grad_error"] += 1
        elif fn in grad_errors or fn not in grads:
            failures.append((fn, "gradient run failed", [grad_errors.get(fn, "no @..._value_and_grad")]))
            counts["grad_error"] += 1
        else:
            bad, err = compare_gradients(v, grads[fn], jax_grads[v.case.name])
            dt = str(v.case.args[0].dtype)
            worst[dt] = max(worst[dt], err)
            if bad:
                failures.append((fn, "gradient mismatch", bad))
                counts["grad_mismatch"] += 1
            else:
                counts["grad_ok"] += 1
        if (v.case.source and any(f[0] == fn for f in failures[-2:])):
            failures[-1][2].append("the program:\n" + v.case.source)

    for fn, what, detail in failures:
        print(f"FAIL {fn}: {what}")
        for line in detail:
            print("    " + line.replace("\n", "\n    "))
    if opts.verbose:
        for fn, detail in documented:
            print(f"documented {fn}: " + "; ".join(detail))
    for fn, detail in bugs:
        print(f"KNOWN BUG {fn}: " + "; ".join(detail))

    kinds = collections.Counter(c.kind for c in cases)
    print()
    print(f"cases: {kinds['random']} random programs, {kinds['probe']} single-op probes, "
          f"{kinds['model']} models; {len(variants)} functions (case x policy)")
    print("functions per variant: " + ", ".join(f"{k} {sum(n.values())}" for k, n in sorted(per_policy.items())))
    print(f"residuals: {counts['res_exact']} same as JAX, "
          f"{counts['res_documented'] + counts['res_listed']} documented differences "
          f"({counts['res_documented']} by rule, {counts['res_listed']} listed), "
          f"{counts['res_mismatch']} undocumented mismatches, {counts['res_bug']} known bugs")
    for s, n in sorted(sections.items()):
        print(f"    {n:5d}  {s}")
    print(f"gradients: {counts['grad_ok']} agree with jax.value_and_grad, {counts['grad_mismatch']} mismatches, "
          f"{counts['grad_error']} failed runs; worst relative error f32 {worst['float32']:.2g}, "
          f"f64 {worst['float64']:.2g}")
    if counts["export_error"] or counts["opt_error"]:
        print(f"errors: {counts['export_error']} exports, {counts['opt_error']} cotangent-opt runs")
    print(f"time: {t_export - t0:.1f}s export, {t_split - t_export:.1f}s cotangent-opt, "
          f"{t_jax - t_split:.1f}s JAX gradients and {t_res - t_jax:.1f}s JAX residuals (cotangent-interpret "
          f"meanwhile), {t_tools - t_res:.1f}s waiting for cotangent-interpret, "
          f"{time.time() - t_tools:.1f}s comparison, {time.time() - t0:.1f}s in all")
    bad = len(failures) + len(bugs)
    print("FAILED" if bad else "PASSED")
    return 1 if bad else 0


def docs_has_section(doc, section):
    return compare_residuals_lib.docs_has_section(ROOT, doc, section)


if __name__ == "__main__":
    sys.exit(main())
