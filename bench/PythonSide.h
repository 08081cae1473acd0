//===- PythonSide.h - the anchors' side of a bench, in their own venv -*- C++ -*-===//
//
// JAX (bench/jax_cpu.py) and PyTorch (bench/torch_cpu.py) run the bench's
// rows in their own processes, from venvs that scripts/jax-venv.sh and
// scripts/torch-venv.sh make: Cotangent never links them. A row set goes
// to the script as a JSON file; its figures come back as one.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_PYTHONSIDE_H
#define COTANGENT_BENCH_PYTHONSIDE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace cotangent::bench {

/// What `argv` prints on stdout, or nullopt when it cannot run or fails.
std::optional<std::string> standardOutputOf(llvm::ArrayRef<llvm::StringRef> argv);

/// The python of the venv `script` (scripts/<name>-venv.sh) makes in the
/// build folder's `venv`: the last line it prints; nullopt when it fails.
std::optional<std::string> venvPython(llvm::StringRef script, llvm::StringRef venv);

/// Runs `python bench/<script> ROWS.json OUT.json` on `rows` and returns
/// what it wrote; null, with `why`, when it fails or writes no JSON object.
std::optional<llvm::json::Object> runRows(const std::string &python, llvm::StringRef script,
                                          llvm::json::Array rows, std::string &why);

/// The figures of row `id` in runRows' answer ({"rows": {id: figures}});
/// null, with `why`, when missing or when the row reports an "error".
std::optional<llvm::json::Object> rowFigures(const llvm::json::Object &out, llvm::StringRef id,
                                             llvm::StringRef script, std::string &why);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_PYTHONSIDE_H
