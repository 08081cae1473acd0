//===- AnalysisPasses.td - predictions about compiled programs -*- tablegen -*-===//

#ifndef COTANGENT_ANALYSIS_PASSES
#define COTANGENT_ANALYSIS_PASSES

include "mlir/Pass/PassBase.td"

def JxPrintMemoryPlanPass : Pass<"jx-print-memory-plan", "mlir::ModuleOp"> {
  let summary = "Print the predicted peak memory of each forward/backward split";
  let description = [{
    For every `@f_fwd`/`@f_bwd` pair (after `--jx-vjp`, and `--jx-remat` if it
    ran), predicts the bytes the CPU runtime will hold while it runs the
    forward, keeps the residuals and runs the backward: a clone of the module
    is lowered to buffers exactly as `cotangent-run` lowers it, and its
    allocations and frees are replayed without the data. Prints the peak, the
    blocks live at it (type, role, function, source location) and the
    timeline of allocations and frees:

    ```
    memory plan of @f (@f_fwd, then @f_bwd, on the CPU runtime)
    peak: 736 bytes, in @f_bwd
    residuals held between the calls: 320 bytes
    live at the peak: 7 blocks
             128  f32[4,8]       residual 1   @f_fwd examples/f.mlir:31
    ...
    ```

    The peak equals what `cotangent-run --split` measures, byte for byte. A
    branch on tensor data (`jx.cond`) is followed both ways and the largest
    peak is reported, with the smallest beside it. `format=json` (or `=json`)
    prints JSON; `timeline=false` leaves the timeline out. The IR is unchanged.

    `target=cuda` predicts the device memory of the GPU runtime instead
    (`cotangent-run --target=cuda --split` measures it): the module is lowered
    to buffers as `jx-to-nvvm` lowers it, a residual the policy offloads
    (`pinned_host`) leaves the count once it is copied out, and the backward's
    copy back counts from where it is made.
  }];
  let options = [
    Option<"format", "format", "::mlir::cotangent::ReportFormat",
           /*default=*/"::mlir::cotangent::ReportFormat::Text", "Output format",
           [{::llvm::cl::values(
             clEnumValN(::mlir::cotangent::ReportFormat::Text, "text", "readable text"),
             clEnumValN(::mlir::cotangent::ReportFormat::Json, "json", "JSON: an array, an object per split"))}]>,
    Option<"target", "target", "::mlir::cotangent::MemoryPlanTarget",
           /*default=*/"::mlir::cotangent::MemoryPlanTarget::Cpu",
           "The runtime whose memory is predicted",
           [{::llvm::cl::values(
             clEnumValN(::mlir::cotangent::MemoryPlanTarget::Cpu, "cpu", "the CPU runtime"),
             clEnumValN(::mlir::cotangent::MemoryPlanTarget::Cuda, "cuda", "the GPU runtime"))}]>,
    Option<"json", "json", "bool", /*default=*/"false",
           "Shorthand for format=json: --jx-print-memory-plan=json">,
    Option<"timeline", "timeline", "bool", /*default=*/"true",
           "Print every allocation and free, not only the peak">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print (default: stdout)">
  ];
}

def JxRematFrontierPass : Pass<"jx-remat-frontier", "mlir::ModuleOp"> {
  let summary = "Print the (peak bytes, recomputed FLOPs) frontier of each split, with JAX's policies on it";
  let description = [{
    Runs after `--jx-vjp`, before `--jx-remat`. For every `@f_fwd`/`@f_bwd`
    pair with remat regions, treats all its regions as one `memory_budget`
    problem (`docs/remat-optimal.md`) and finds, for every peak it can reach,
    the fewest FLOPs the backward recomputes. By default from one
    elimination: every schedule of the budget model's (saved bytes, FLOPs)
    Pareto set is predicted by the memory plan (in parallel), and those no
    other beats on (peak, FLOPs) are the frontier; each point says whether
    it is proven optimal, optimal under the working-set bound (as a budget
    solve's answer is), or the best found. With `per-budget` (or where the
    elimination cannot go), the budget is swept down from the peak without
    remat instead, one solve per budget, each one byte below the last peak
    found (slower: the MILP also looks beyond the Pareto set). The named
    policies are placed on the same axes: each region's policy replaced by
    one of them, rematerialized, its peak predicted by the memory plan and
    its recomputed FLOPs counted. Prints JSON:

    ```
    [ { "split": "f", "no_remat_peak_bytes": 10240, "by_elimination": true,
        "schedules_predicted": 5,
        "frontier": [ { "budget_bytes": 10240, "peak_bytes": 10240, "recomputed_flops": 0,
                        "optimality": "proven", ... }, ... ],
        "policies": [ { "policy": "nothing_saveable", "peak_bytes": 5120, ... }, ... ] } ]
    ```

    The IR is unchanged. Regions may not nest (as for `memory_budget`).
  }];
  let options = [
    Option<"seconds", "seconds", "double", /*default=*/"2",
           "Time the elimination may take; per budget, time each solve may take "
           "(the last one, below the smallest peak, takes all of it to find that "
           "nothing fits)">,
    Option<"perBudget", "per-budget", "bool", /*default=*/"false",
           "Sweep one budget solve at a time instead of predicting one "
           "elimination's Pareto set">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print (default: stdout)">
  ];
}

#endif // COTANGENT_ANALYSIS_PASSES
