#!/usr/bin/env python3
"""Draws cotangent-bench --run fit --fit-data: what each side fits under each memory cap.

Left: tokens/s at each cap, each side (Cotangent, JAX, PyTorch) at its best
choice's largest batch that fits, the batch written on the bar. Right: each
choice's memory (arguments + peak) against the batch, the caps as lines:
where a curve crosses a cap is the largest batch that choice fits. Prints
the table too; drawing needs matplotlib (apt-get install python3-matplotlib),
the table does not. Without it and with -o, says so and exits with code 3.

    python3 tools/plot-fit.py build/fit.json -o docs/remat-fit.png
"""

import argparse
import json
import sys

from plotcommon import MISSING_MATPLOTLIB, have_matplotlib

SIDES = [("cotangent", "Cotangent"), ("jax", "JAX"), ("pytorch", "PyTorch")]
COLORS = {"Cotangent": "tab:blue", "JAX": "tab:orange", "PyTorch": "tab:green"}


def table(data):
    print(f"GPT-2 {data['preset']}, sequences of {data['seq']} tokens")
    print("cap GiB | " + " | ".join(f"{name}: choice, batch, tokens/s" for _, name in SIDES))
    for cap in data["caps"]:
        cells = []
        for key, _ in SIDES:
            fit = cap[key]
            cells.append(f"{fit['choice']}, {fit['batch']}, {fit['tokens_per_second']:.0f}"
                         if fit["batch"] else "no batch fits")
        print(f"{cap['cap_gib']:7.1f} | " + " | ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="a cotangent-bench --run fit --fit-data file")
    parser.add_argument("-o", "--output", help="the picture (.png, .svg, .pdf)")
    args = parser.parse_args()
    with open(args.data) as f:
        data = json.load(f)
    table(data)
    if not args.output:
        return 0
    if not have_matplotlib("plot-fit", args.data, args.output):
        return MISSING_MATPLOTLIB
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (bars, curves) = plt.subplots(1, 2, figsize=(13, 4.8))
    caps = data["caps"]
    width = 0.8 / len(SIDES)
    for i, (key, name) in enumerate(SIDES):
        xs = [c + (i - 1) * width for c in range(len(caps))]
        rates = [cap[key]["tokens_per_second"] for cap in caps]
        bars.bar(xs, rates, width, label=name, color=COLORS[name])
        for x, cap, rate in zip(xs, caps, rates):
            fit = cap[key]
            bars.text(x, rate, f"b{fit['batch']}\n{fit['choice']}" if fit["batch"] else "none",
                      ha="center", va="bottom", fontsize=6)
    bars.set_xticks(range(len(caps)), [f"{cap['cap_gib']:g} GiB" for cap in caps])
    bars.set_ylabel("tokens/s at the largest batch that fits")
    bars.set_title(f"GPT-2 {data['preset']} step under a memory cap (best choice per side)")
    bars.legend(loc="lower right")

    styles = ["-", "--", ":", "-."]
    for name, choices in data["memory"].items():
        for j, (choice, per_batch) in enumerate(sorted(choices.items())):
            points = sorted((int(b), v / (1 << 30)) for b, v in per_batch.items())
            curves.plot([p[0] for p in points], [p[1] for p in points], styles[j % len(styles)],
                        marker="o", markersize=3, color=COLORS.get(name, "gray"),
                        label=f"{name} {choice}")
    for cap in caps:
        curves.axhline(cap["cap_gib"], color="gray", linewidth=0.6)
    curves.set_xscale("log", base=2)
    curves.set_xlabel(f"batch (sequences of {data['seq']} tokens)")
    curves.set_ylabel("arguments + peak (GiB)")
    curves.set_title("memory per batch; the caps as lines")
    curves.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(args.output, dpi=130)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
