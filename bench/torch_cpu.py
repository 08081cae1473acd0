#!/usr/bin/env python3
"""PyTorch's side of cotangent-bench --run fit, on the same CPU.

Reads the bench's rows (JSON: a list of {"id", "model": "gpt2", "preset"
or "layers", "width", "vocab", "context" (and optionally "heads"), "batch",
"seq", "budget", "backend", "step": "grad", "repeats", "warmup",
"measure_only"}) and for each runs GPT-2's training step (forward, loss,
loss.backward(); the gradients set to None before each step, so the step
allocates them, as XLA's step allocates its outputs):

  budget null     eager PyTorch, no compile (backend "eager");
  budget b        torch.compile(model, backend=..., dynamic=False) under
                  torch._functorch.config.activation_memory_budget = b
                  (the min-cut partitioner's knob: 0 recomputes the most,
                  1 saves what the default partitioner saves); backend
                  "inductor" (default) or "aot_eager_decomp_partition"
                  (the same decompositions and partition, hence the same
                  saved tensors, run by eager kernels: a cheap compile for
                  memory-only rows).

Per row: peak_bytes (the step's peak of live CPU tensor bytes above those
live before it, from the profiler's allocation events: activations, saved
tensors, gradients, temporaries), argument_bytes (parameters, ids and
targets), compile_s (the first call's time less a steady step's: dynamo,
AOT autograd's partition and the backend's codegen, forward and backward),
backend, and unless measure_only median_ms and min_ms over `repeats` steps
after `warmup`. Writes {"torch", "threads", "rows": {id: figures},
"max_rss_bytes"} as JSON to the file given.

    torch_cpu.py ROWS.json OUT.json
    torch_cpu.py --rss-check ROWS.json OUT.json   (also rss_growth_bytes)
    torch_cpu.py --self-check

--rss-check measures each row's step also by the growth of the process's
peak RSS (glibc asked to mmap every block over 64 KiB, so a freed tensor
leaves RSS at once; freed memory trimmed and VmHWM reset before the step):
what the profiler misses (oneDNN's and MKL's own buffers, malloc by
kernels, Python objects) shows as the difference. It slows the steps
(page faults on every fresh block), so it times nothing.
"""
import ctypes
import gc
import json
import os
import resource
import statistics
import sys
import time

import torch
import torch._dynamo
import torch._functorch.config
import torch._inductor.config
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_models import config_of, gpt2_arguments  # noqa: E402

BACKENDS = ("inductor", "aot_eager_decomp_partition", "eager")

# Every compile from scratch, as jax_cpu.py clears jax's caches: compile_s
# is then a cold compile, and no row can load a graph (or a partition)
# that another row's budget cached on disk.
torch._inductor.config.force_disable_caches = True
# Inductor compiles its kernels in this process rather than in a pool of
# workers: the machine is shared, one Python process at a time.
torch._inductor.config.compile_threads = 1


def _walk(nodes):
    for node in nodes:
        yield node
        yield from _walk(node.children)


def profiled_peak(fn):
    """Runs fn() under the profiler; returns the peak of live CPU bytes
    above those live at the start, replaying its allocation events (signed
    sizes) in time order, then the same from the allocator's running
    total, the number of events and fn's seconds. Only allocations of
    c10's CPU allocator made on a thread the profiler follows are seen; a
    block allocated before the profiler started and freed inside it has no
    event (it never lowers the curve)."""
    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        # Timed inside: the profiler's start and its events' processing after
        # are no part of the step.
        start = time.perf_counter()
        fn()
        seconds = time.perf_counter() - start
    tree = prof.profiler.kineto_results.experimental_event_tree()
    events = sorted((n for n in _walk(tree)
                     if isinstance(n.extra_fields, torch._C._profiler._ExtraFields_Allocation)
                     and n.extra_fields.device.type == "cpu"),
                    key=lambda n: n.start_time_ns)
    live = peak = 0
    for node in events:
        live += node.extra_fields.alloc_size
        peak = max(peak, live)
    # The allocator's own running total, order-free: must agree with the
    # replay unless two events tie in time out of order.
    if events:
        first = events[0].extra_fields
        total_peak = max(n.extra_fields.total_allocated for n in events) - (
            first.total_allocated - first.alloc_size)
    else:
        total_peak = 0
    return peak, total_peak, len(events), seconds


class Rss:
    """Peak-RSS growth of one call, for --rss-check."""

    def __init__(self):
        self.libc = ctypes.CDLL("libc.so.6")
        M_MMAP_THRESHOLD = -3
        # A fixed threshold also stops glibc from raising it after frees,
        # which would let big blocks stay in the heap, resident.
        if not self.libc.mallopt(M_MMAP_THRESHOLD, 64 << 10):
            raise RuntimeError("mallopt(M_MMAP_THRESHOLD) failed")

    @staticmethod
    def _status(key):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError(f"no {key} in /proc/self/status")

    def growth(self, fn):
        gc.collect()
        self.libc.malloc_trim(0)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
        before = self._status("VmRSS")
        fn()
        return self._status("VmHWM") - before


def measure(row, rss=None):
    if row.get("model", "gpt2") != "gpt2":
        raise ValueError(f"model {row.get('model')!r}: only gpt2")
    if row.get("step", "grad") != "grad":
        raise ValueError(f"step {row.get('step')!r}: only grad")
    budget = row.get("budget")
    backend = row.get("backend") or ("eager" if budget is None else "inductor")
    if backend not in BACKENDS or (backend == "eager") != (budget is None):
        raise ValueError(f"backend {backend!r} with budget {budget!r}")
    if budget is not None and not 0.0 <= float(budget) <= 1.0:
        raise ValueError(f"budget {budget} outside [0, 1]")

    model, ids, targets = gpt2_arguments(config_of(row), int(row["batch"]), int(row["seq"]))
    figures = {"backend": backend,
               "argument_bytes": sum(t.numel() * t.element_size()
                                     for t in [*model.parameters(), ids, targets])}
    torch._dynamo.reset()  # no graph, guard or recompile carried from a row before
    # The budget is read when AOT autograd partitions, on the first call.
    memory_budget = 1.0 if budget is None else float(budget)  # 0.0 is a budget
    with torch._functorch.config.patch(activation_memory_budget=memory_budget):
        fn = model if budget is None else torch.compile(model, backend=backend, dynamic=False)

        def step():
            loss = fn(ids, targets)
            loss.backward()

        def timed():
            model.zero_grad(set_to_none=True)  # outside the profile: no frees of old grads
            start = time.perf_counter()
            step()
            return time.perf_counter() - start

        first_s = timed()
        if rss is not None:
            model.zero_grad(set_to_none=True)
            figures["rss_growth_bytes"] = rss.growth(step)
        model.zero_grad(set_to_none=True)
        peak, total_peak, events, profiled_s = profiled_peak(step)
        figures["peak_bytes"] = peak
        figures["allocation_events"] = events
        if total_peak != peak:
            figures["peak_total_allocated_bytes"] = total_peak
        if row.get("measure_only") or rss is not None:
            steady_s = profiled_s
        else:
            for _ in range(int(row.get("warmup", 1))):
                timed()
            times = [timed() for _ in range(int(row.get("repeats", 3)))]
            figures["median_ms"] = statistics.median(times) * 1e3
            figures["min_ms"] = min(times) * 1e3
            steady_s = min(times)
    figures["compile_s"] = max(first_s - steady_s, 0.0) if budget is not None else 0.0
    figures["first_step_s"] = first_s
    model.zero_grad(set_to_none=True)
    torch._dynamo.reset()
    return figures


def self_check():
    """The profiler replay against steps whose peak is known."""
    mib = 1 << 20

    def known():
        a = torch.empty(mib // 4)      # 1 MiB
        b = torch.empty(2 * mib // 4)  # 2 MiB: 3 MiB live
        del a
        c = torch.empty(mib // 8)      # 0.5 MiB: 2.5 MiB live
        d = torch.ones(3 * mib // 4)   # 3 MiB: 5.5 MiB live, the peak
        del b, c, d

    old = torch.empty(4 * mib // 4)   # live before: not part of the peak
    peak, total, _, _ = profiled_peak(known)
    assert peak == total == 5 * mib + mib // 2, (peak, total)
    del old

    # exp saves its output (n floats) and the backward allocates the
    # gradient (n floats), both live at the end of the backward.
    n = mib // 4
    x = torch.rand(n, requires_grad=True)

    def autograd():
        loss = x.exp().sum()
        loss.backward()

    peak, total, _, _ = profiled_peak(autograd)
    assert peak == total and 2 * mib <= peak <= 2 * mib + 4096, (peak, total)
    assert x.grad is not None and x.grad.numel() == n

    # The parameters in gpt2_shapes' order (jax_models.py), which JAX and
    # Cotangent trace.
    c, v, t = 128, 512, 64
    block = [(c,), (c,), (3 * c,), (c, 3 * c), (c,), (c, c), (c,), (c,), (4 * c,), (c, 4 * c),
             (c,), (4 * c, c)]
    model, _, _ = gpt2_arguments(config_of({"preset": "tiny"}), 1, 8)
    shapes = [tuple(p.shape) for p in model.parameters()]
    assert shapes == [(v, c), (t, c)] + block * 2 + [(c,), (c,)], shapes

    # Tiny GPT-2, eager and compiled: the step's peak holds the gradients.
    for budget, backend in [(None, "eager"), (0.0, "aot_eager_decomp_partition"),
                            (1.0, "aot_eager_decomp_partition")]:
        row = {"id": "self", "model": "gpt2", "preset": "tiny", "batch": 8, "seq": 64,
               "budget": budget, "backend": backend, "step": "grad", "measure_only": True}
        figures = measure(row)
        model, ids, targets = gpt2_arguments(config_of(row), 8, 64)
        params = sum(p.numel() * p.element_size() for p in model.parameters())
        assert "peak_total_allocated_bytes" not in figures, figures
        assert figures["peak_bytes"] > params, (figures, params)
        print(f"self-check: tiny 8x64 {backend} budget {budget}: peak {figures['peak_bytes']} "
              f"(parameters {params})", file=sys.stderr)
    print("self-check: ok", file=sys.stderr)


def main():
    args = sys.argv[1:]
    if args == ["--self-check"]:
        self_check()
        return
    rss = None
    if args and args[0] == "--rss-check":
        rss = Rss()
        args = args[1:]
    if len(args) != 2:
        sys.exit("usage: torch_cpu.py [--rss-check] ROWS.json OUT.json | --self-check")
    run_rows(args[0], args[1], lambda row: measure(row, rss), "torch")


def error_figures(e):
    """A row's or a point's figures when it fails: reported, not hidden."""
    return {"error": f"{type(e).__name__}: {str(e)[:300]}"}


def run_rows(rows_path, out_path, measure_row, tag):
    """Measures each row of ROWS.json and writes {"torch", "threads", "rows":
    {id: figures}, "max_rss_bytes"} to OUT.json; a row that fails gets
    {"error"} instead of ending the run."""
    with open(rows_path) as f:
        rows = json.load(f)
    out = {"torch": torch.__version__, "threads": torch.get_num_threads(), "rows": {}}
    for row in rows:
        try:
            out["rows"][row["id"]] = measure_row(row)
        except Exception as e:
            out["rows"][row["id"]] = error_figures(e)
            torch._dynamo.reset()
        print(f"{tag}: {row['id']}: {out['rows'][row['id']]}", file=sys.stderr, flush=True)
    out["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
