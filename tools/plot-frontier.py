#!/usr/bin/env python3
"""Draws the remat frontier that `--jx-remat-frontier` prints (and cotangent-bench --run frontier).

Input: its JSON, one object per split with the `frontier` (the memory_budget
schedules: predicted peak bytes and recomputed FLOPs, each the fewest FLOPs
for its peak) and the named `policies` placed on the same axes. Output: one
picture per file (PNG, SVG or PDF, by the extension), one panel per split:
peak bytes across, recomputed FLOPs up; the frontier as a staircase (FLOPs on a log scale when they span
more than a factor of 100) (every
point above and right of it is reachable, nothing below it is), the policies
as hollow markers named in a legend.

    python3 tools/plot-frontier.py build/frontier.json -o build/frontier.svg --title "MLP"

Needs matplotlib (apt-get install python3-matplotlib, or pip install matplotlib);
without it, says so and exits with code 3, which the C++ tools take to mean
"not drawn, carry on".
"""

import argparse
import json
import sys

from plotcommon import BYTE_UNITS, FLOP_UNITS, MISSING_MATPLOTLIB, have_matplotlib, unit

MARKERS = ["o", "s", "D", "^", "v", "P", "X", "<", ">", "h"]



def load(path):
    with open(path, encoding="utf-8") as f:
        splits = json.load(f)
    if not isinstance(splits, list) or not splits:
        raise ValueError(f"{path}: expected a non-empty list of splits")
    for split in splits:
        for key in ("split", "frontier", "policies"):
            if key not in split:
                raise ValueError(f"{path}: a split has no '{key}'")
        if not split["frontier"]:
            raise ValueError(f"{path}: split '{split['split']}' has an empty frontier")
    return splits


def draw(splits, title, out):
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(splits), figsize=(7.5 * len(splits), 5), squeeze=False)
    for ax, split in zip(axes[0], splits):
        points = sorted(split["frontier"], key=lambda p: p["peak_bytes"])
        policies = split["policies"]
        peaks = [p["peak_bytes"] for p in points] + [p["peak_bytes"] for p in policies]
        flops = [p["recomputed_flops"] for p in points] + [p["recomputed_flops"] for p in policies]
        bname, bsize = unit(max(peaks), BYTE_UNITS)
        fname, fsize = unit(max(max(flops), 1), FLOP_UNITS)
        xs = [p["peak_bytes"] / bsize for p in points]
        ys = [p["recomputed_flops"] / fsize for p in points]
        # Fewest FLOPs for every peak at least this one: a staircase.
        ax.step(xs, ys, where="post", color="tab:blue", linewidth=1.5, zorder=2)
        ax.plot(xs, ys, "o", color="tab:blue", markersize=3.5, zorder=3,
                label=f"memory_budget frontier ({len(points)} schedules)")
        # Policies with the same figures share one marker and one legend entry.
        groups = {}
        for p in policies:
            groups.setdefault((p["peak_bytes"], p["recomputed_flops"]), []).append(p["policy"])
        for i, ((peak, flop), names) in enumerate(sorted(groups.items())):
            ax.plot(peak / bsize, flop / fsize, MARKERS[i % len(MARKERS)], markersize=10,
                    markerfacecolor="none", markeredgewidth=1.6, zorder=4,
                    color=f"C{(i + 1) % 10}", label=", ".join(names))
        # FLOPs span orders of magnitude (a tanh against a dot): log scale,
        # linear near 0 so that the schedules recomputing nothing show.
        nonzero = [f / fsize for f in flops if f > 0]
        if nonzero and max(nonzero) / min(nonzero) > 100:
            ax.set_yscale("symlog", linthresh=min(nonzero))
        ax.set_xlabel(f"predicted peak ({bname})")
        ax.set_ylabel(f"recomputed in the backward ({fname})")
        ax.set_title(split["split"] if len(splits) > 1 or not title else title)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    if title and len(splits) > 1:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="the JSON --jx-remat-frontier printed")
    parser.add_argument("-o", "--output", required=True, help="the picture (.png, .svg, .pdf)")
    parser.add_argument("--title", default="", help="the plot's title")
    args = parser.parse_args()
    try:
        splits = load(args.data)
    except (OSError, ValueError) as e:
        print(f"plot-frontier.py: {e}", file=sys.stderr)
        return 1
    if not have_matplotlib("plot-frontier.py", args.data, args.output):
        return MISSING_MATPLOTLIB
    draw(splits, args.title, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
