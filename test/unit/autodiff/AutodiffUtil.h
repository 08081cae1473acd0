//===- AutodiffUtil.h - helpers of the autodiff numerical tests -*- C++ -*-===//
//
// Parse jx programs, run --jx-vjp (and --jx-remat) on them, evaluate them
// with the reference interpreter, and compare the VJP's input cotangents
// with central finite differences of <ct, f(x)>.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_AUTODIFF_AUTODIFFUTIL_H
#define COTANGENT_TEST_UNIT_AUTODIFF_AUTODIFFUTIL_H

#include "passes/report/Residuals.h"
#include "test/support/ProgramText.h"
#include "runtime/interpreter/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace autodiff {

using cotangent::interp::Tensor;

/// The one context of the test process (jx and func loaded).
mlir::MLIRContext &context();

using cotangent::testing::allPolicies;
using cotangent::testing::subst;
using cotangent::testing::tensorType;

/// Parses `source` (the test fails on error, printing the diagnostics).
mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &source);

/// Runs --jx-vjp on `function` (all functions when empty), then --jx-remat if asked.
void differentiate(mlir::ModuleOp module, bool remat, const std::string &function = "f");

/// Runs -inline -cse on `module` (@f_fwd and @f_bwd get inlined into @f_vjp).
void inlineAndCse(mlir::ModuleOp module);

/// Runs @name of `module` on `args` through the interpreter (fails the test on error).
std::vector<Tensor> call(mlir::ModuleOp module, const std::string &name,
                         const std::vector<Tensor> &args);

/// The element type / shape of @name's arguments and results.
std::vector<mlir::RankedTensorType> argumentTypes(mlir::ModuleOp module, const std::string &name);
std::vector<mlir::RankedTensorType> resultTypes(mlir::ModuleOp module, const std::string &name);

mlir::RankedTensorType parseTensorType(const std::string &type);

/// Uniform values in [lo, hi]; with minAbs > 0 the magnitude is at least minAbs
/// (the sign is random). Integer tensors get integers in [lo, hi].
Tensor random(mlir::RankedTensorType type, std::mt19937_64 &rng, double lo = -1.5,
              double hi = 1.5, double minAbs = 0.0);
Tensor random(const std::string &type, std::mt19937_64 &rng, double lo = -1.5, double hi = 1.5,
              double minAbs = 0.0);
Tensor values(const std::string &type, std::vector<double> values);

/// Same type and the same bytes (NaN payloads included).
bool bitIdentical(const Tensor &a, const Tensor &b);
bool allZero(const Tensor &t);
std::string show(const Tensor &t);

struct GradCheck {
  /// Inputs of @f; missing ones (fewer than @f's arguments) are drawn at random.
  std::vector<Tensor> inputs;
  double step = 1e-6;
  /// |vjp - fd| <= tolerance * (1 + |vjp|).
  double tolerance = 1e-6;
  bool remat = false;
  uint64_t seed = 1;
  /// False for ops whose VJP differs from their derivative on purpose (stop_gradient).
  bool finiteDifferences = true;
};

struct VjpResult {
  std::vector<Tensor> outputs;   ///< @f_vjp's primal outputs
  std::vector<Tensor> gradients; ///< @f_vjp's input cotangents
  std::vector<Tensor> inputs;
  std::vector<Tensor> cotangents;
};

/// Differentiates @f of `source`, runs @f_vjp on the inputs and a random
/// output cotangent, and checks every float input coordinate against central
/// differences of <ct, f(x)> computed by running @f; integer inputs must get
/// exact zero cotangents, and @f_vjp's outputs must equal @f's bit for bit.
VjpResult checkGradients(const std::string &source, const GradCheck &options = {});

/// Runs @f_vjp of a differentiated module.
VjpResult runVjp(mlir::ModuleOp differentiated, const std::vector<Tensor> &inputs,
                 const std::vector<Tensor> &cotangents);

/// The residuals @f_fwd saves.
std::vector<mlir::cotangent::Residual> residualsOf(mlir::ModuleOp differentiated,
                                                   const std::string &function = "f");

} // namespace autodiff

#endif // COTANGENT_TEST_UNIT_AUTODIFF_AUTODIFFUTIL_H
