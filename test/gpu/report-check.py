#!/usr/bin/env python3
"""bench/gpu/report.py on made-up results (no GPU needed): the table, the
offload check against its on-device twin, the scalar twin's ratio, and a
failure wherever values went unchecked (no JAX reference).

    report-check.py REPORT_PY
"""
import json
import os
import subprocess
import sys
import tempfile

MIB = 2**20


def step(median_ms, peak_mib, offloaded_mib=0, ok=True):
    return {"median_ms": median_ms, "min_ms": median_ms, "peak_bytes": int(peak_mib * MIB),
            "predicted_peak_bytes": int(peak_mib * MIB), "residual_bytes": 0,
            "offloaded_bytes": int(offloaded_mib * MIB), "max_rel_diff": 1e-7,
            "max_gradient_rel_diff": 2.5e-6, "max_output_abs_diff": 3e-8, "ok": ok}


def run(report, results, offload_peak_mib, jax=True):
    """Writes `results` (model -> step.json) and runs report.py on them."""
    folder = tempfile.mkdtemp()
    out = os.path.join(folder, "out")
    results = dict(results)
    results["mlp-b2048-offload"] = ("mlp", "offload", step(5.0, offload_peak_mib, 64))
    models = ["# name kind policy"]
    for name, (kind, policy, s) in results.items():
        models.append(f"{name} {kind} {policy}")
        os.makedirs(os.path.join(out, name))
        json.dump(s, open(os.path.join(out, name, "step.json"), "w"))
        if kind not in ("reference", "scalar"):
            json.dump(s, open(os.path.join(out, name, "step-tf32.json"), "w"))
        if kind not in ("reference", "scalar") and jax:
            json.dump({"highest": {"median_ms": 2 * s["median_ms"], "peak_bytes": 200 * MIB}},
                      open(os.path.join(out, name, "jax.json"), "w"))
    open(os.path.join(folder, "models.txt"), "w").write("\n".join(models) + "\n")
    p = subprocess.run([sys.executable, report, out, os.path.join(folder, "models.txt")],
                       capture_output=True, text=True)
    summary = json.load(open(os.path.join(out, "summary.json")))
    return p.returncode, p.stdout + p.stderr, summary


def main():
    report = sys.argv[1]
    failures = []
    results = {
        "seed-g-f": ("reference", "-", step(0.01, 0.001)),
        "mlp-b2048-none": ("mlp", "none", step(2.4, 112)),
        "mlp-b2048-none-scalar": ("scalar", "mlp-b2048-none", step(3.0, 112)),
        "mlp-b2048-dots_on_device": ("mlp", "dots_on_device", step(2.5, 116)),
    }
    # The offload holds 52 MiB against its twin's 116: lowered by 64 of 64.
    code, text, summary = run(report, results, 52)
    print(text)
    expect = [
        "mlp-b2048-offload: device peak 52.0 MiB, 116.0 with the residuals on the device "
        "(mlp-b2048-dots_on_device): lowered by 64.0 of 64.0 MiB offloaded (yes)",
        "mlp-b2048-none: 2.400 ms with 16-byte accesses, 3.000 ms with one element per thread "
        "(mlp-b2048-none-scalar): ratio 0.800",
        "PASS",
    ]
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("mlp-b2048-none |")]
    if not rows or rows[0][13:16] != ["2.5e-06", "3e-08", "yes"]:
        failures.append(f"the gradients' and the loss's differences not in their columns: {rows}")
    failures += [f"missing: {line}" for line in expect if line not in text]
    if code != 0:
        failures.append(f"exit {code} where every step passed")
    rows = {r["model"]: r for r in summary}
    if abs(rows["mlp-b2048-none-scalar"].get("vector_ratio", 0) - 0.8) > 1e-9:
        failures.append("summary.json lacks the scalar twin's ratio")
    if not rows["mlp-b2048-none-scalar"]["ok"]:
        failures.append("a scalar twin without TF32 counted as failed")
    # Lowered by 40 of 64 MiB: the check fails.
    code, text, _ = run(report, results, 76)
    if "lowered by 40.0 of 64.0 MiB offloaded (NO)" not in text or "FAIL" not in text or code == 0:
        failures.append("an offload lowering the peak by less than it moved passed:\n" + text)
    # Without JAX's results (jax_step.py failed) the values went unchecked: FAIL.
    code, text, summary = run(report, results, 52, jax=False)
    if code == 0 or "NO (no JAX reference)" not in text or any(r["ok"] for r in summary
                                                                if r["kind"] != "reference"):
        failures.append("steps without a JAX reference passed:\n" + text)
    # A scalar twin whose step failed its reference fails the check.
    results["mlp-b2048-none-scalar"] = ("scalar", "mlp-b2048-none", step(3.0, 112, ok=False))
    code, text, _ = run(report, results, 52)
    if code == 0:
        failures.append("a failed scalar twin passed:\n" + text)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
