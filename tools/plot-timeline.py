#!/usr/bin/env python3
"""Draws a cotangent-train --timeline: each process's steps, collectives and waits.

The file is Chrome's trace event format (open it in chrome://tracing or
Perfetto too): per process (rank), spans on the thread "step" (each training
step, and inside it each wait for a collective) and on "communication" (each
collective as the communication thread ran it). Prints, per rank over the
last --steps steps, how much of the communication ran while the step's
thread computed (not waiting): the overlap of the gradients' reductions with
the backward. With -o, also draws those steps, one band per rank and thread.

    python3 tools/plot-timeline.py build/timeline.json --steps 2 -o docs/timeline.png

Drawing needs matplotlib (apt-get install python3-matplotlib); the summary
does not. Without it and with -o, says so and exits with code 3.
"""

import argparse
import json
import os
import sys

from plotcommon import MISSING_MATPLOTLIB, have_matplotlib


def overlap(a, b):
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("timeline", help="a cotangent-train --timeline file")
    parser.add_argument("--steps", type=int, default=3, help="the last N steps (default 3)")
    parser.add_argument("-o", "--output", help="the picture (.png, .svg, .pdf)")
    args = parser.parse_args()
    with open(args.timeline) as f:
        events = json.load(f)["traceEvents"]
    ranks = sorted({e["pid"] for e in events})
    spans = {}
    for e in events:
        spans.setdefault((e["pid"], e["tid"]), []).append(
            (e["ts"] / 1e3, (e["ts"] + e["dur"]) / 1e3, e["name"], e["args"].get("bytes", 0)))
    window = {}
    for r in ranks:
        steps = sorted(s for s in spans.get((r, "step"), []) if s[2].startswith("step"))[-args.steps:]
        if not steps:
            sys.exit(f"plot-timeline: rank {r} has no steps in {args.timeline}")
        waits = [s for s in spans.get((r, "step"), []) if s[2] == "wait"]
        comms = [c for c in spans.get((r, "communication"), [])
                 if any(overlap(c, s) > 0 for s in steps)]
        total = sum(c[1] - c[0] for c in comms)
        # Hidden: communication while a step ran and its thread was not waiting.
        hidden = sum(sum(overlap(c, s) for s in steps) - sum(overlap(c, w) for w in waits)
                     for c in comms)
        step_ms = sum(s[1] - s[0] for s in steps) / len(steps)
        waited = sum(sum(overlap(w, s) for s in steps) for w in waits) / len(steps)
        print(f"rank {r}: {len(steps)} steps of {step_ms:.2f} ms (mean): {len(comms)} collectives, "
              f"{sum(c[3] for c in comms) / len(steps) / 1e6:.2f} MB a step, "
              f"{total / len(steps):.2f} ms of communication a step, "
              f"{100 * hidden / total if total else 0:.0f}% of it while the step computed, "
              f"{waited:.2f} ms a step waited")
        window[r] = (steps[0][0], steps[-1][1], steps, waits, comms)
    if not args.output:
        return 0
    if not have_matplotlib("plot-timeline", args.timeline, args.output):
        return MISSING_MATPLOTLIB
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 1.2 + 1.1 * len(ranks)))
    labels = []
    for i, r in enumerate(ranks):
        begin, end, steps, waits, comms = window[r]
        base = 3 * (len(ranks) - 1 - i)
        ax.broken_barh([(s[0] - begin, s[1] - s[0]) for s in steps], (base + 2, 0.8),
                       color="#4c72b0", label="step (computing)" if i == 0 else None)
        ax.broken_barh([(w[0] - begin, w[1] - w[0]) for w in waits if overlap(w, (begin, end))],
                       (base + 2, 0.8), color="#dd8452",
                       label="step waiting for a collective" if i == 0 else None)
        ax.broken_barh([(c[0] - begin, c[1] - c[0]) for c in comms], (base + 1, 0.8),
                       color="#55a868", label="collective (communication thread)" if i == 0 else None)
        labels += [(base + 1.4, f"rank {r} comm"), (base + 2.4, f"rank {r} step")]
    ax.set_yticks([y for y, _ in labels], [t for _, t in labels])
    ax.set_xlabel("ms since the first step shown (each rank's own clock)")
    ax.set_title(f"{os.path.basename(args.timeline)}: the last {args.steps} steps")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot-timeline: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
