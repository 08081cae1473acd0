#!/usr/bin/env python3
"""Runs every step of a GPU-check folder against the CUDA driver double.

With FAKE_DIR (build/fake-cuda: libcuda.so.1 and cuBLAS) first on
LD_LIBRARY_PATH, `cotangent-step` runs each step's host side through the CUDA
runtime as on a GPU, kernels and GEMMs excepted (they compute nothing): the
eager step, its recording as a CUDA graph, replays, and a profiled step.
Checks, per step:

- it exits 0 and the double reported no broken driver rule (its messages
  start with "fake CUDA driver" or "fake cuBLAS");
- the timed steps were graph replays (the recording succeeded);
- the measured device peak is the memory plan's prediction, or that plus the
  outputs (cotangent-step holds them to the step's end, the plan frees them
  after the forward);
- a step whose forward offloads (mlp-offload*) reports offloaded bytes.

A step whose host code reads values kernels compute (it imports
cotangent_cuda_read_scalar: a scan's or cond's ownership flags and
predicates) would read zeros here and take other paths than on a GPU: it is
reported as skipped. At least one step must run.

    run-fake-driver.py FOLDER FAKE_DIR
"""
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile

BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "i1": 1, "ui32": 4}


def tensor_bytes(text):
    """Bytes of a type printed as f32[7,6] (f32[] for a scalar)."""
    dtype, dims = re.fullmatch(r"(\w+)\[([\d,]*)\]", text).groups()
    count = 1
    for d in filter(None, dims.split(",")):
        count *= int(d)
    return count * BYTES[dtype]


def main():
    folder, fake = sys.argv[1], os.path.abspath(sys.argv[2])
    env = dict(os.environ, LD_LIBRARY_PATH=fake + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
    step = os.path.join(folder, "bin", "cotangent-step")
    tmp = tempfile.mkdtemp()
    failures, ran = [], 0
    models = [l.split() for l in open(os.path.join(folder, "models.txt"))
              if l.strip() and not l.startswith("#")]
    for name, kind, _ in models:
        so = os.path.join(tmp, name + ".so")
        with open(so, "wb") as f:
            f.write(lzma.open(os.path.join(folder, "steps", name + ".so.xz")).read())
        if b"cotangent_cuda_read_scalar" in open(so, "rb").read():
            print(f"{name}: skipped (its host code reads values its kernels compute)")
            continue
        ran += 1
        inputs = os.path.join(folder, "models", name, "inputs")
        args = []
        if kind == "reference":
            for f in sorted(os.listdir(inputs), key=lambda f: int(f[3:-4])):
                args += ["--input", os.path.join(inputs, f)]
        out_json = os.path.join(tmp, name + ".json")
        run = subprocess.run([step, so, *args, "--repeat", "2", "--warmup", "1", "--profile", "3",
                              "--json", out_json], capture_output=True, text=True, env=env)
        text = run.stdout + run.stderr
        problems = []
        if run.returncode:
            problems.append(f"exit {run.returncode}")
        problems += [l for l in text.splitlines() if l.startswith(("fake CUDA", "fake cuBLAS"))]
        if "CUDA graph" not in text:
            problems.append("the timed steps were not graph replays")
        figures = json.load(open(out_json)) if os.path.exists(out_json) else {}
        peak, predicted = figures.get("peak_bytes"), figures.get("predicted_peak_bytes", -1)
        outputs = sum(tensor_bytes(t) for t in re.findall(r"^output \d+: (\S+)", run.stdout, re.M))
        if peak is None or predicted < 0:
            problems.append("no measured or predicted peak")
        elif not predicted <= peak <= predicted + outputs:
            problems.append(f"device peak {peak} bytes, predicted {predicted} "
                            f"(+ {outputs} of outputs)")
        # What bench/gpu/report.py's table reads.
        missing = {"median_ms", "residual_bytes", "offloaded_bytes", "max_gradient_rel_diff",
                   "max_output_abs_diff", "ok"} - figures.keys()
        if missing:
            problems.append(f"--json lacks {sorted(missing)}")
        elif (figures["max_gradient_rel_diff"] is not None
              or figures["max_output_abs_diff"] is not None):
            problems.append("--json gives differences where nothing was compared (no --expect)")
        offloaded = figures.get("offloaded_bytes", 0)
        if name.startswith("mlp-offload") and not offloaded:
            problems.append("nothing offloaded")
        print(f"{name}: peak {peak} bytes (predicted {predicted}, outputs {outputs}), "
              f"offloaded {offloaded}: {'ok' if not problems else 'FAILED'}")
        for p in problems:
            failures.append(f"{name}: {p}")
        if problems:
            print(text)
    if not ran:
        failures.append("no step ran")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
