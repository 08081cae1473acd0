//===- TorchGpt2.cpp - PyTorch's side of the GPT-2 benches -----------------===//

#include "bench/TorchGpt2.h"
#include "bench/PythonSide.h"

#include "models/gpt2/Config.h"

using namespace cotangent;

std::optional<std::string> bench::torchPython(const std::string &given, std::string &why) {
  std::optional<std::string> python =
      given.empty() ? venvPython("torch-venv.sh", "torch-venv") : given;
  if (!python) {
    why = "scripts/torch-venv.sh could not make the venv";
    return std::nullopt;
  }
  if (!standardOutputOf({*python, "-c", "import torch"})) {
    why = *python + " cannot import torch";
    return std::nullopt;
  }
  return python;
}

std::optional<llvm::json::Object> bench::runTorchGpt2(const std::string &python,
                                                      const TorchGpt2Row &row, std::string &why) {
  std::optional<gpt2::Config> config = gpt2::preset(row.preset);
  if (!config) {
    why = "no GPT-2 preset '" + row.preset + "'";
    return std::nullopt;
  }
  llvm::json::Object spec{{"id", "gpt2"},
                          {"model", "gpt2"},
                          {"layers", config->n_layer},
                          {"width", config->n_embd},
                          {"heads", config->n_head},
                          {"vocab", config->vocab_size},
                          {"context", config->block_size},
                          {"batch", row.batch},
                          {"seq", row.seq},
                          {"backend", row.budget ? row.backend : std::string("eager")},
                          {"step", "grad"},
                          {"repeats", row.repeats},
                          {"warmup", row.warmup}};
  spec["budget"] = row.budget ? llvm::json::Value(*row.budget) : llvm::json::Value(nullptr);
  llvm::json::Array rows;
  rows.push_back(std::move(spec));
  auto out = runRows(python, "torch_cpu.py", std::move(rows), why);
  return out ? rowFigures(*out, "gpt2", "torch_cpu.py", why) : std::nullopt;
}
