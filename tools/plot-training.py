#!/usr/bin/env python3
"""Draws a cotangent-train run from its --log (one JSON line per step).

Output: one picture (PNG, SVG or PDF, by the extension) with

  - left: the training loss per step (and its mean over a window, as a line),
    the validation losses where they were measured;
  - right: tokens per second per step, with MFU on a second axis.

Several logs draw as several curves (e.g. f32 against bf16, or a policy
against another), named by their file names.

    python3 tools/plot-training.py build/demo-train.jsonl -o build/demo-train.png

Needs matplotlib (apt-get install python3-matplotlib, or pip install matplotlib);
without it, says so and exits with code 3.
"""

import argparse
import json
import os
import sys

from plotcommon import MISSING_MATPLOTLIB, have_matplotlib


def read(path):
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"plot-training: {path}:{number}: not a JSON line ({e.msg})")
    if not rows or any("step" not in r or "loss" not in r for r in rows):
        sys.exit(f"plot-training: {path}: no cotangent-train log lines (step, loss)")
    return rows


def smooth(values, window):
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="cotangent-train --log files")
    parser.add_argument("-o", "--output", required=True, help="the picture (.png, .svg, .pdf)")
    parser.add_argument("--window", type=int, default=20, help="steps in the loss's running mean")
    args = parser.parse_args()
    runs = [(os.path.basename(p), read(p)) for p in args.logs]
    if not have_matplotlib("plot-training", " ".join(args.logs), args.output):
        return MISSING_MATPLOTLIB
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (loss_ax, speed_ax) = plt.subplots(1, 2, figsize=(12, 4.5))
    mfu_ax = speed_ax.twinx()
    for name, rows in runs:
        steps = [r["step"] for r in rows]
        losses = [r["loss"] for r in rows]
        line, = loss_ax.plot(steps, smooth(losses, args.window), label=f"{name}: train")
        loss_ax.plot(steps, losses, color=line.get_color(), alpha=0.25, linewidth=0.8)
        val = [(r["step"], r["val_loss"]) for r in rows if "val_loss" in r]
        if val:
            loss_ax.plot(*zip(*val), "o--", color=line.get_color(), label=f"{name}: validation")
        # The first step compiles: left out of the throughput.
        timed = rows[1:] or rows
        speed_ax.plot([r["step"] for r in timed], [r["tokens_per_s"] for r in timed],
                      color=line.get_color(), label=name)
        mfu_ax.plot([r["step"] for r in timed], [100 * r["mfu"] for r in timed],
                    color=line.get_color(), linestyle=":", alpha=0.6)
    loss_ax.set(xlabel="step", ylabel="loss", title="loss (line: running mean)")
    loss_ax.legend()
    speed_ax.set(xlabel="step", ylabel="tokens / s", title="throughput (dotted: MFU)")
    mfu_ax.set_ylabel("MFU (%)")
    speed_ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot-training: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
