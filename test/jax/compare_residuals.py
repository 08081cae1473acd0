#!/usr/bin/env python3
"""Compares Cotangent's saved-residuals report with JAX's, as committed.

  compare_residuals.py REPORT REFERENCE_DIR PROGRAM [--differences FILE] [--docs-root DIR]

REPORT is the output of `cotangent-opt FILE --jx-vjp --jx-remat
--jx-print-saved-residuals=json` (one JSON array, an object per function). REFERENCE_DIR holds JAX's residuals as written by
gen_reference_residuals.py: PROGRAM-<variant>.json, each naming the function
it describes. For every reference, the report's function of that name must
save the same number of residuals with the same multiset of types (dtype and
shape, `f32[4,1]`). Order, primitive names and locations are shown but not
compared: the two systems number and name intermediate values differently.

A difference may be accepted only when it is listed in FILE (a JSON list; see
test/jax/README.md) with the section of docs/policies.md that justifies it;
the section must exist, and a listed difference that no longer occurs is an
error too, so the list stays exact.

Standard library only: this runs in the default (no-JAX) test suite under lit.
Exit status 0 when everything agrees, 1 otherwise; the tables go to stdout.
"""
import argparse
import collections
import glob
import json
import os
import sys


def read_report(path):
    """The report's objects (one JSON array, an object per split), by function name."""
    with open(path) as f:
        return {o["function"]: o for o in json.load(f)}


def describe(r):
    kind, what = r.get("kind", "?"), r.get("what", "")
    if kind == "argument":
        return f"argument {what}"
    if kind == "named":
        return f"named '{what}'"
    if kind == "output":
        return f"output of {what}"
    return f"{kind} {what}".strip()


def table(jax_res, ours):
    rows = [("#", "JAX", "Cotangent")]
    for i in range(max(len(jax_res), len(ours))):
        a = jax_res[i] if i < len(jax_res) else None
        b = ours[i] if i < len(ours) else None
        rows.append((str(i + 1),
                     f"{a['type']} {describe(a)}" if a else "",
                     f"{b['type']} {describe(b)}" if b else ""))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    return "\n".join(f"  {r[0]:>{w0}}  {r[1]:<{w1}}  {r[2]}".rstrip() for r in rows)


def types(res):
    return collections.Counter(r["type"] for r in res)


def fmt(counter):
    return ", ".join(f"{n}x {t}" if n > 1 else t for t, n in sorted(counter.items())) or "nothing"


def docs_has_section(docs_root, doc, section):
    """Whether doc has a heading `section` or a paragraph that starts with `**section**`."""
    try:
        with open(os.path.join(docs_root, doc)) as f:
            return any((line.startswith("#") and line.lstrip("#").strip() == section)
                       or line.startswith(f"**{section}**") for line in f)
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report")
    ap.add_argument("reference_dir")
    ap.add_argument("program")
    ap.add_argument("--differences", help="JSON list of accepted, documented differences")
    ap.add_argument("--docs-root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."),
                    help="the checkout's root, where the differences' docs are looked up")
    opts = ap.parse_args()

    report = read_report(opts.report)
    refs = sorted(glob.glob(os.path.join(opts.reference_dir, glob.escape(opts.program) + "-*.json")))
    if not refs:
        print(f"error: no reference {opts.program}-*.json in {opts.reference_dir}")
        return 1
    accepted = []
    if opts.differences:
        with open(opts.differences) as f:
            accepted = json.load(f)

    failures = agree = 0
    described = set()
    for path in refs:
        with open(path) as f:
            ref = json.load(f)
        fn = ref["function"]
        described.add(fn)
        jax_res = ref["residuals"]
        print(f"== @{fn} ({os.path.basename(path)}, JAX {ref.get('jax_version', '?')}, policy {ref.get('policy')})")
        if fn not in report:
            print(f"FAIL: the report has no function @{fn}")
            failures += 1
            continue
        ours = report[fn]["residuals"]
        print(table(jax_res, ours))
        want, got = types(jax_res), types(ours)
        # Accepted differences turn JAX's multiset into the one we should have.
        mine = [d for d in accepted if d["function"] == fn]
        ok = True
        for d in mine:
            if not docs_has_section(opts.docs_root, d["doc"], d["section"]):
                print(f"FAIL: accepted difference for @{fn} cites '{d['section']}' in {d['doc']}, "
                      f"which has no such section")
                ok = False
            drop, add = collections.Counter(d["jax"]), collections.Counter(d["ours"])
            if (want & drop) != drop or (got & add) != add:
                print(f"FAIL: the accepted difference '{d['section']}' ({fmt(drop)} -> {fmt(add)}) "
                      f"no longer occurs; remove it from {opts.differences}")
                ok = False
            want = want - drop + add
        if want != got or len(ours) != sum(want.values()):
            ok = False
            print(f"FAIL: JAX saves {len(jax_res)} residuals ({ref['total_bytes']} bytes), "
                  f"Cotangent {len(ours)} ({report[fn]['total_bytes']} bytes)")
            if want - got:
                print(f"  JAX saves, Cotangent does not: {fmt(want - got)}")
            if got - want:
                print(f"  Cotangent saves, JAX does not: {fmt(got - want)}")
            if mine:
                print(f"  (after {len(mine)} accepted difference(s) from {opts.differences})")
        if ok:
            note = f", {len(mine)} accepted difference(s)" if mine else ""
            print(f"ok: {len(ours)} residuals, the same types as JAX{note}")
            agree += 1
        else:
            failures += 1
    for fn in sorted(report):
        if fn.startswith(opts.program + "_") and fn not in described:
            print(f"FAIL: @{fn} has no JAX reference; run gen_reference_residuals.py")
            failures += 1
    for d in accepted:
        if d["function"].startswith(opts.program + "_") and d["function"] not in described:
            print(f"FAIL: an accepted difference names @{d['function']}, which has no reference")
            failures += 1
    print(f"{agree} of {len(refs)} functions of {opts.program} save what JAX saves")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
