//===- TorchGpt2.h - PyTorch's side of the GPT-2 benches --------*- C++ -*-===//
//
// GPT-2's value-and-grad step in PyTorch (bench/torch_models.py, the program
// of bench/jax_models.py's gpt2_loss with PyTorch's fused attention and
// cross-entropy), compiled by torch.compile under one
// activation_memory_budget (the min-cut partitioner's knob: 0 recomputes
// the most, 1 keeps what the forward made), run by bench/torch_cpu.py in
// the venv scripts/torch-venv.sh makes. Its peak is what PyTorch's
// allocator had live during the step beyond the arguments.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_TORCHGPT2_H
#define COTANGENT_BENCH_TORCHGPT2_H

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

namespace cotangent::bench {

/// The torch venv's python: `given`, else the one scripts/torch-venv.sh
/// makes; nullopt, with `why`, when it cannot import torch.
std::optional<std::string> torchPython(const std::string &given, std::string &why);

struct TorchGpt2Row {
  std::string preset;
  int64_t batch = 1, seq = 256;
  /// activation_memory_budget in [0, 1]; none: eager PyTorch, no compile.
  std::optional<double> budget;
  /// torch.compile's backend: "inductor", or "aot_eager_decomp_partition"
  /// (the same partitioner with eager kernels: quicker to compile, but
  /// 10-30% more memory than inductor for the same budget).
  std::string backend = "inductor";
  unsigned repeats = 2, warmup = 1;
};

/// PyTorch's figures for one row ("peak_bytes", "argument_bytes",
/// "median_ms", ...); null, with `why`, on failure.
std::optional<llvm::json::Object> runTorchGpt2(const std::string &python, const TorchGpt2Row &row,
                                               std::string &why);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_TORCHGPT2_H
