//===- TrajectoryCases.h - optax's training trajectories --------*- C++ -*-===//
//
// The trajectory cases of test/jax/reference/optax.json
// (gen_optax_reference.py): a name, the training data and optax's loss at
// every step; each test reads the parameters it needs from `doc`.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_OPTIM_TRAJECTORYCASES_H
#define COTANGENT_TEST_UNIT_OPTIM_TRAJECTORYCASES_H

#include "test/unit/api/JaxReference.h"

namespace cotangent::test {

struct TrajectoryCase {
  std::string name;
  const llvm::json::Object *doc;
  interp::Tensor x, y, losses;
};

/// The cases of `path` whose `kind` key names them ("trajectory",
/// "block_trajectory").
inline std::vector<TrajectoryCase> trajectoryCases(mlir::MLIRContext &ctx, const std::string &path,
                                                   llvm::StringRef kind) {
  std::vector<TrajectoryCase> out;
  for (const llvm::json::Value &c : jaxref::cases(path)) {
    const llvm::json::Object &o = *c.getAsObject();
    if (auto name = o.getString(kind))
      out.push_back({name->str(), &o, jaxref::f32Array(ctx, *o.getObject("x")),
                     jaxref::f32Array(ctx, *o.getObject("y")),
                     jaxref::f32Array(ctx, *o.getObject("losses"))});
  }
  return out;
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_UNIT_OPTIM_TRAJECTORYCASES_H
