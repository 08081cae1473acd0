#!/usr/bin/env python3
"""The GPU check's table: each model's step (FP32 and TF32) against JAX on
the same GPU (precision "highest" and default), device peaks against XLA's
(memory_analysis output + temp), how far the FP32 step's gradients (relative)
and loss (absolute) are from the reference, and whether every step matched
it; then, for each offload step, how far it lowered the device peak
below its twin that holds the same residuals on the device (the model named
with "dots_on_device" for "offload"): by the offloaded bytes, or the check
fails; and for each model of kind "scalar" (its model compiled with one
element per thread in elementwise kernels), the time of its model's 16-byte
accesses against it. Writes out/summary.json beside the table.

    report.py OUT_DIR MODELS_TXT
"""
import json
import os
import sys


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def offload_savings(rows):
    """Each offload step's device peak against its on-device twin's."""
    steps = {r["model"]: r["step"] or {} for r in rows}
    ok = True
    for r in rows:
        if r["policy"] != "offload":
            continue
        twin = r["model"].replace("offload", "dots_on_device")
        s, t = steps[r["model"]], steps.get(twin, {})
        if "peak_bytes" not in s or "peak_bytes" not in t:
            print(f"{r['model']}: no peak against {twin} (not run)")
            continue
        lowered, offloaded = t["peak_bytes"] - s["peak_bytes"], s.get("offloaded_bytes", 0)
        r["peak_lowered_bytes"] = lowered
        held = lowered >= offloaded
        ok = ok and held
        print(f"{r['model']}: device peak {s['peak_bytes'] / 2**20:.1f} MiB, "
              f"{t['peak_bytes'] / 2**20:.1f} with the residuals on the device ({twin}): "
              f"lowered by {lowered / 2**20:.1f} of {offloaded / 2**20:.1f} MiB offloaded "
              f"({'yes' if held else 'NO'})")
    return ok


def vector_gains(rows):
    """Each model's FP32 step against its scalar twin's (both replays)."""
    steps = {r["model"]: r["step"] or {} for r in rows}
    for r in rows:
        if r["kind"] != "scalar":
            continue
        base, scalar = steps.get(r["policy"], {}), steps[r["model"]]
        if "median_ms" not in base or "median_ms" not in scalar:
            print(f"{r['policy']}: no time against {r['model']} (not run)")
            continue
        r["vector_ratio"] = base["median_ms"] / scalar["median_ms"]
        print(f"{r['policy']}: {base['median_ms']:.3f} ms with 16-byte accesses, "
              f"{scalar['median_ms']:.3f} ms with one element per thread ({r['model']}): "
              f"ratio {r['vector_ratio']:.3f}")


def main():
    out, models = sys.argv[1], sys.argv[2]
    rows, ok = [], True
    for line in open(models):
        if not line.strip() or line.startswith("#"):
            continue
        name, kind, policy = line.split()
        step = load(os.path.join(out, name, "step.json"))
        tf32 = load(os.path.join(out, name, "step-tf32.json"))
        jax = load(os.path.join(out, name, "jax.json")) or {}
        # Without JAX's results a model's values were never checked: not a pass.
        reference = jax if kind != "scalar" else load(os.path.join(out, policy, "jax.json"))
        checked = kind == "reference" or bool(reference and "highest" in reference)
        passed = checked and bool(step and step.get("ok")) and (
            kind in ("reference", "scalar") or bool(tf32 and tf32.get("ok")))
        ok = ok and passed
        rows.append({"model": name, "kind": kind, "policy": policy, "step": step, "tf32": tf32,
                     "jax": jax, "checked": checked, "ok": passed})
    mib = lambda b: f"{b / 2**20:.1f}" if b is not None else "-"
    ms = lambda r, k="median_ms": f"{r[k]:.3f}" if r and k in r else "-"
    ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
    # Gradients relative to their largest magnitude; the loss, a sum that may
    # nearly cancel, absolute (cotangent-step's --expect, FP32 step).
    diff = lambda r, k: f"{r[k]:.2g}" if r.get(k) is not None else "-"
    head = ("model", "ours FP32 ms", "JAX highest ms", "ratio", "ours TF32 ms", "JAX default ms",
            "ratio", "our peak MiB", "predicted MiB", "XLA peak MiB", "ratio", "residual MiB",
            "offloaded MiB", "grad rel diff", "loss abs diff", "ok")
    print(" | ".join(head))
    for r in rows:
        s, t, j = r["step"] or {}, r["tf32"] or {}, r["jax"]
        jh, jd = j.get("highest"), j.get("default")
        print(" | ".join([
            r["model"], ms(s), ms(jh), ratio(s.get("median_ms"), jh and jh["median_ms"]),
            ms(t), ms(jd), ratio(t.get("median_ms"), jd and jd["median_ms"]),
            mib(s.get("peak_bytes")),
            mib(s["predicted_peak_bytes"]) if s.get("predicted_peak_bytes", -1) >= 0 else "-",
            mib(jh and jh["peak_bytes"]),
            ratio(s.get("peak_bytes"), jh and jh["peak_bytes"]),
            mib(s.get("residual_bytes")), mib(s.get("offloaded_bytes")),
            diff(s, "max_gradient_rel_diff"), diff(s, "max_output_abs_diff"),
            "yes" if r["ok"] else "NO" if r["checked"] else "NO (no JAX reference)"]))
        if "error" in j:
            print(f"   JAX: {j['error']}")
    ok = offload_savings(rows) and ok
    vector_gains(rows)
    json.dump(rows, open(os.path.join(out, "summary.json"), "w"), indent=1)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
