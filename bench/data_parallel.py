#!/usr/bin/env python3
"""Data parallelism on this machine: the 2-process step against one process's.

Runs cotangent-train (tiny GPT-2 by default, the repository's GPL-3 text)
three ways, each --steps steps, and prints the median step time (steps after
the first --skip), tokens/s of the whole job, and ratios:

  1 process,   batch B       (the baseline: the step each rank runs)
  N processes, batch B each  (job batch N x B: gradients averaged, pmean)
  N processes, --zero 1      (ZeRO-1: reduce-scatter, block update, all-gather)

and, from the N-process run's --timeline, how much of the communication ran
while the step computed (tools/plot-timeline.py). On a machine with fewer
cores than N x the step's threads, the N processes share the cores: the
ratio then says what the group costs here, not what it would on N machines.

    python3 bench/data_parallel.py --build build [--preset tiny --batch 4 --nproc 2]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(cmd, log):
    subprocess.run(cmd + ["--log", log], check=True, stdout=subprocess.DEVNULL)
    with open(log) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--preset", default="tiny")
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--skip", type=int, default=10)
    p.add_argument("--text", default="/usr/share/common-licenses/GPL-3")
    args = p.parse_args()
    train = os.path.join(args.build, "bin", "cotangent-train")
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "text.bin")
        subprocess.run([train, "prepare", args.text, data], check=True, stdout=subprocess.DEVNULL)
        common = [train, "--data", data, "--preset", args.preset, "--steps", str(args.steps),
                  "--batch", str(args.batch), "--seq", str(args.seq), "--peak-tflops", "1"]
        timeline = os.path.join(tmp, "timeline.json")
        runs = [("1 process", run(common, os.path.join(tmp, "one.jsonl"))),
                (f"{args.nproc} processes", run(common + ["--nproc", str(args.nproc),
                                                          "--timeline", timeline],
                                                 os.path.join(tmp, "dp.jsonl"))),
                (f"{args.nproc} processes, ZeRO-1",
                 run(common + ["--nproc", str(args.nproc), "--zero", "1"],
                     os.path.join(tmp, "zero.jsonl")))]
        print(f"GPT-2 {args.preset}, batch {args.batch} x {args.seq} a process, {args.steps} steps, "
              f"medians of steps {args.skip + 1}-{args.steps} (OPENBLAS_* as set: "
              f"{os.environ.get('OPENBLAS_CORETYPE', 'unset')})")
        print(f"{'run':<24} {'ms/step':>8} {'tokens/s (job)':>15} {'x 1 process time':>17}")
        base = None
        for name, rows in runs:
            ms = statistics.median(r["ms"] for r in rows[args.skip:])
            tps = statistics.median(r["tokens_per_s"] for r in rows[args.skip:])
            base = base or ms
            print(f"{name:<24} {ms:8.2f} {tps:15.0f} {ms / base:17.2f}")
        print(f"timeline of the {args.nproc}-process run, its last 10 steps:")
        sys.stdout.flush()
        subprocess.run([sys.executable, os.path.join(here, "..", "tools", "plot-timeline.py"),
                        timeline, "--steps", "10"], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
