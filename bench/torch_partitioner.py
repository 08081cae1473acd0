#!/usr/bin/env python3
"""PyTorch's min-cut partitioner swept over its memory budget, on the CPU.

The other side of Cotangent's memory-budget remat: for each row and each
budget b in its "budgets", the training step of one program is compiled by
torch.compile(loss_fn, backend="aot_eager_decomp_partition", dynamic=False)
under torch._functorch.config.activation_memory_budget = b (0 recomputes
the most, 1 saves what the default partitioner saves), torch._dynamo reset
first. The backend partitions as inductor would (its decompositions, the
min-cut partition) and runs both graphs with eager kernels. Rows (JSON, a
list):

  {"id", "model": "gpt2_block", "width", "heads", "batch", "seq", "budgets"}
      torch_models.Block (GPT-2's pre-LN block), x f32[batch, seq, width]
      uniform(-1, 1), loss = block(x).sum();
  {"id", "model": "mlp", "layers", "width", "batch", "budgets"}
      W_i f32[width, width] uniform(-0.05, 0.05), x f32[batch, width]
      uniform(-1, 1), h_{i+1} = tanh(h_i @ W_i), loss = h_L.sum().

x and every parameter require grad; the step is the loss's forward and
loss.backward(), the gradients set to None before it (so it allocates
them). Figures of the eager step (no compile, once per row) and per point:

  peak_bytes       the step's peak of live CPU tensor bytes above those live
                   before it (torch_cpu.profiled_peak: the profiler's
                   allocation events), on a warm call after the compiling one;
  saved_bytes,     what the forward saves for the backward: a pack hook of
  saved_tensors    torch.autograd.graph.saved_tensors_hooks around the
                   forward sees every tensor the compiled forward hands to
                   ctx.save_for_backward (and every tensor eager autograd
                   saves); counted by distinct storage, summing
                   untyped_storage().nbytes(), so views (W.t()) count once;
  saved_bytes_excluding_arguments   the same less the storages of x and the
                   parameters (saved by reference, they cost nothing);
  flops            one forward + backward counted by FlopCounterMode (mm,
                   addmm, bmm, attention as PyTorch counts them). The mode
                   cannot wrap a compiled call: dynamo skips a frame while a
                   dispatch mode is on the stack and runs it eagerly, so the
                   count would be eager's. So a second compile under the same
                   budget (FlopCounting: the same decompositions and min-cut
                   partition) runs each partitioned graph, forward and
                   backward, under a FlopCounterMode, and one warm call is
                   counted: the ops the partitioned graphs run, recomputation
                   included. That compile's saved tensors are checked against
                   the first's; a difference shows as
                   "flops_compile_saved_bytes";
  recomputed_flops flops less the eager step's: what recomputation adds;
  compile_s        the first call's seconds less a warm call's.

Writes {"torch", "threads", "rows": {id: {"argument_bytes", "eager",
"points": [{"budget", ...}]}}} as JSON; a failing row or point gets
{"error": message} instead.

    torch_partitioner.py ROWS.json OUT.json
    torch_partitioner.py --self-check
"""
import functools
import os
import sys
import time

import torch
import torch._dynamo
import torch._functorch.config
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.partitioners import min_cut_rematerialization_partition
from torch.utils.flop_counter import FlopCounterMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# torch_cpu also disables compile caches: every point compiles cold, and no
# budget can load another budget's partition.
from torch_cpu import error_figures, profiled_peak, run_rows  # noqa: E402
from torch_models import Block, _uniform  # noqa: E402

torch.set_num_threads(2)


def program(row, seed=3):
    """(loss_fn, call_args, leaves): loss_fn(*call_args) is the loss; leaves
    are x and the parameters, whose gradients the step computes."""
    g = torch.Generator().manual_seed(seed)
    if row["model"] == "gpt2_block":
        width, heads = int(row["width"]), int(row["heads"])
        if width % heads:
            raise ValueError(f"{heads} heads do not divide width {width}")
        block = Block(width, heads, g)
        x = torch.rand(int(row["batch"]), int(row["seq"]), width, generator=g) * 2 - 1
        x.requires_grad_()
        return (lambda x: block(x).sum()), [x], [x, *block.parameters()]
    if row["model"] == "mlp":
        width = int(row["width"])
        weights = [_uniform((width, width), g) for _ in range(int(row["layers"]))]
        x = (torch.rand(int(row["batch"]), width, generator=g) * 2 - 1).requires_grad_()

        def mlp(x, *weights):
            h = x
            for w in weights:
                h = torch.tanh(h @ w)
            return h.sum()
        return mlp, [x, *weights], [x, *weights]
    raise ValueError(f"model {row['model']!r}: gpt2_block or mlp")


def _clear(leaves):
    for t in leaves:
        t.grad = None


def timed_step(fn, args, leaves):
    _clear(leaves)  # outside the timing: no frees of old gradients
    start = time.perf_counter()
    fn(*args).backward()
    return time.perf_counter() - start


def saved_and_grads(fn, args, leaves):
    """One step whose forward runs under a pack hook: the saved tensors'
    distinct storages, then the gradients."""
    storages = {}

    def pack(t):
        s = t.untyped_storage()
        # Keyed by address while the graph holds the tensor: no reference
        # kept past the step.
        storages[s.data_ptr()] = s.nbytes()
        return t

    _clear(leaves)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = fn(*args)
    arguments = {t.untyped_storage().data_ptr() for t in leaves}
    figures = {"saved_bytes": sum(storages.values()), "saved_tensors": len(storages),
               "saved_bytes_excluding_arguments": sum(
                   n for p, n in storages.items() if p not in arguments)}
    loss.backward()
    return figures, [t.grad.clone() for t in leaves]


def peak_bytes(fn, args, leaves):
    _clear(leaves)
    peak, total_peak, _, _ = profiled_peak(lambda: fn(*args).backward())
    figures = {"peak_bytes": peak}
    if total_peak != peak:  # events tied out of order: shown, as torch_cpu.py does
        figures["peak_total_allocated_bytes"] = total_peak
    return figures


class FlopCounting:
    """aot_eager_decomp_partition's recipe (inductor's decompositions, the
    min-cut partition for inductor, effect tokens unlifted) with compilers
    that run each partitioned graph, forward and backward, by an FX
    Interpreter under a FlopCounterMode, adding up its totals. Not by the
    GraphModule's own call, as PyTorch's aot_eager_decomp_partition_with_mode
    runs it: FlopCounterMode's module tracker hooks that call and fails on
    some graphs' outputs ("Expected gradient function to be set")."""

    def __init__(self):
        self.flops = 0

    def _compiler(self, gm, example_inputs):
        def run(args):
            with FlopCounterMode(display=False) as counter:
                out = torch.fx.Interpreter(gm).boxed_run(args)
            self.flops += counter.get_total_flops()
            return out
        run._boxed_call = True
        return run

    def __call__(self, gm, example_inputs):
        from torch._inductor.compile_fx import select_decomp_table
        with torch._functorch.config.patch(unlift_effect_tokens=True):
            return aot_autograd(
                fw_compiler=self._compiler, bw_compiler=self._compiler,
                decompositions=select_decomp_table(),
                partition_fn=functools.partial(min_cut_rematerialization_partition,
                                               compiler="inductor"))(gm, example_inputs)


def eager(fn, args, leaves):
    timed_step(fn, args, leaves)  # one step first: lazy initialisations
    figures = peak_bytes(fn, args, leaves)
    _clear(leaves)
    with FlopCounterMode(display=False) as counter:
        fn(*args).backward()
    figures["flops"] = counter.get_total_flops()
    saved, grads = saved_and_grads(fn, args, leaves)
    figures.update(saved_bytes=saved["saved_bytes"], saved_tensors=saved["saved_tensors"])
    return figures, grads


def point(loss_fn, args, leaves, budget, eager_figures, eager_grads=None):
    torch._dynamo.reset()  # no graph or guard carried from another budget
    # The budget is read when AOT autograd partitions, on the first call.
    with torch._functorch.config.patch(activation_memory_budget=budget):
        fn = torch.compile(loss_fn, backend="aot_eager_decomp_partition", dynamic=False)
        first_s = timed_step(fn, args, leaves)
        warm_s = timed_step(fn, args, leaves)
        figures = {"budget": budget, **peak_bytes(fn, args, leaves)}
        saved, grads = saved_and_grads(fn, args, leaves)
        figures.update(saved)

        torch._dynamo.reset()
        counting = FlopCounting()
        counted = torch.compile(loss_fn, backend=counting, dynamic=False)
        timed_step(counted, args, leaves)  # compiles
        counting.flops = 0
        timed_step(counted, args, leaves)
        figures["flops"] = counting.flops
        counted_saved, _ = saved_and_grads(counted, args, leaves)
        if counted_saved != saved:
            figures["flops_compile_saved_bytes"] = counted_saved["saved_bytes"]
    torch._dynamo.reset()
    _clear(leaves)
    figures["recomputed_flops"] = figures["flops"] - eager_figures["flops"]
    figures["compile_s"] = max(first_s - warm_s, 0.0)
    if eager_grads is not None:
        for i, (got, want) in enumerate(zip(grads, eager_grads)):
            error = (got - want).abs().max().item() / max(want.abs().max().item(), 1e-30)
            assert error <= 1e-5, f"budget {budget}: gradient {i} off by {error:.2e} relative"
    return figures


def measure(row, check_grads=False):
    loss_fn, args, leaves = program(row)
    figures = {"argument_bytes": sum(t.numel() * t.element_size() for t in leaves)}
    figures["eager"], grads = eager(loss_fn, args, leaves)
    print(f"torch_partitioner: {row['id']} eager: {figures['eager']}", file=sys.stderr, flush=True)
    figures["points"] = []
    for budget in row["budgets"]:
        budget = float(budget)
        try:
            if not 0.0 <= budget <= 1.0:
                raise ValueError(f"budget {budget} outside [0, 1]")
            p = point(loss_fn, args, leaves, budget, figures["eager"], grads if check_grads else None)
        except Exception as e:  # reported in the table, not hidden
            p = {"budget": budget, **error_figures(e)}
            torch._dynamo.reset()
        figures["points"].append(p)
        line = p.get("error") or (
            f"peak {p['peak_bytes'] / 2**20:.1f} MiB, saved {p['saved_bytes'] / 2**20:.1f} MiB "
            f"({p['saved_tensors']}), recomputed {p['recomputed_flops'] / 1e9:.4g} GFLOP, "
            f"compile {p['compile_s']:.1f} s")
        print(f"torch_partitioner: {row['id']} budget {budget}: {line}", file=sys.stderr, flush=True)
    return figures


def self_check():
    rows = [{"id": "block", "model": "gpt2_block", "width": 64, "heads": 4, "batch": 2, "seq": 32},
            {"id": "mlp", "model": "mlp", "layers": 3, "width": 64, "batch": 16}]
    recomputes = {}
    for row in rows:
        figures = measure({**row, "budgets": [0.0, 0.5, 1.0]}, check_grads=True)
        points = figures["points"]
        for p in points:
            assert "error" not in p, (row["id"], p)
            assert p["flops"] >= figures["eager"]["flops"], (row["id"], p, figures["eager"])
            assert "flops_compile_saved_bytes" not in p, (row["id"], p)
        assert points[0]["saved_bytes"] <= points[-1]["saved_bytes"], (row["id"], points)
        recomputes[row["id"]] = points[0]["recomputed_flops"]
    # The docstring's premise: around a compiled call the mode sees eager ops.
    loss_fn, args, _ = program(rows[1])
    fn = torch.compile(loss_fn, backend="aot_eager_decomp_partition", dynamic=False)
    fn(*args)
    with FlopCounterMode(display=False):
        node = type(fn(*args).grad_fn).__name__
    assert node != "CompiledFunctionBackward", node
    torch._dynamo.reset()
    # At budget 0 the MLP's forward saves only x and the weights: the
    # backward recomputes each h_i @ W_i (tanh' needs tanh's output).
    assert recomputes["mlp"] > 0, recomputes
    print(f"torch_partitioner self-check: ok (recomputed FLOPs at budget 0: {recomputes})",
          file=sys.stderr)


def main():
    args = sys.argv[1:]
    if args == ["--self-check"]:
        self_check()
        return
    if len(args) != 2:
        sys.exit("usage: torch_partitioner.py ROWS.json OUT.json | --self-check")
    run_rows(args[0], args[1], measure, "torch_partitioner")


if __name__ == "__main__":
    main()
