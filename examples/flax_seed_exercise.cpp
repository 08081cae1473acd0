//===- flax_seed_exercise.cpp - the Flax nn.checkpoint exercise in C++ ----===//
//
// The seed exercise: nn_checkpoint_forward(seed, x, features) builds
// MLP = Dense(features) -> relu -> Dense(features), lifts it with
// nn::checkpoint, initializes it with PRNGKey(seed) exactly as Flax does
// (nn::Scope, lecun_normal kernels, zero biases) and applies it. The
// checkpoint changes what the backward pass keeps, not the output, which is
// Flax's to 1e-6: the CHECK lines below are Flax 0.12's values for
//
//   x = jnp.asarray([-1, -0.5, -0.25, 0.25, 0.5, 1], jnp.float32)
//   model = nn.checkpoint(MLP)(features=4)
//   model.apply(model.init(jax.random.PRNGKey(seed), x), x)
//
// (test/unit/api/FlaxParityTest.cpp checks 24 more keys and shapes against
// test/jax/reference/flax.json.)
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "SeedMlp.h"

#include "tracer/Jit.h"
#include "tracer/Layers.h"
#include "tracer/Module.h"
#include "tracer/Nn.h"

using namespace cotangent;
using examples::section;
using examples::MLP;
using nn::Dict;

namespace {

interp::Tensor nn_checkpoint_forward(mlir::MLIRContext &ctx, int64_t seed,
                                     const interp::Tensor &x, int64_t features) {
  auto CkptMLP = nn::checkpoint<MLP>(); // lift the type, then instantiate
  auto model = CkptMLP(features);
  nn::Scope root(ctx, random::PRNGKey(seed));
  Dict<Dict<interp::Tensor>> params = model.init(root, x.getNumElements());
  std::cout << "params['Dense_0']['kernel'] " << examples::typeOf(params["Dense_0"].at("kernel"))
            << " " << examples::head(params["Dense_0"].at("kernel")) << "\n";
  auto apply = [model](Dict<Dict<Tensor>> p, Tensor in) { return model(p, in); };
  return jit(apply)(params, x);
}

} // namespace

int main() {
  mlir::MLIRContext ctx;
  auto x = interp::Tensor::fromDoubles(mlir::RankedTensorType::get({6}, mlir::Float32Type::get(&ctx)),
                                       {-1, -0.5, -0.25, 0.25, 0.5, 1});
  for (int64_t seed : {0, 1}) {
    section("seed " + std::to_string(seed));
    interp::Tensor out = nn_checkpoint_forward(ctx, seed, x, 4);
    std::cout << "output " << examples::typeOf(out) << " " << examples::head(out) << "\n";
  }

  // What the checkpoint changes: the residuals of grad(sum(model(params, x))).
  section("saved for the backward pass");
  auto specs = Dict<Dict<Spec>>{{"Dense_0", {{"kernel", f32({6, 4})}, {"bias", f32({4})}}},
                                {"Dense_1", {{"kernel", f32({4, 4})}, {"bias", f32({4})}}}};
  for (auto [label, policy] : {std::pair{"nothing_saveable", policies::nothing_saveable()},
                               std::pair{"save_only_these_names(hidden)",
                                         policies::save_only_these_names({"hidden"})}}) {
    auto model = nn::checkpoint<MLP>({.policy = policy})(4);
    auto loss = [model](Dict<Dict<Tensor>> p, Tensor in) { return np::sum(model(p, in)); };
    Split split = vjp({.name = "loss", .arg_names = {"params", "x"}}, loss, specs, f32({6}));
    std::cout << label << ": " << split.saved_residuals().size() << " residuals\n";
  }
  return 0;
}

// The expected output (ctest -L examples); the values are Flax's.
// CHECK-LABEL: == seed 0 ==
// CHECK-NEXT: params['Dense_0']['kernel'] f32[6,4] [-0.67434{{[0-9]}}, 0.30804{{[0-9]}}, -0.56246{{[0-9]}}, -0.34783{{[0-9]}}, ...]
// CHECK-NEXT: output f32[4] [-0.00223{{[0-9]}}, -0.00344{{[0-9]}}, 0.00387{{[0-9]}}, 0.00748{{[0-9]}}]
// CHECK-LABEL: == seed 1 ==
// CHECK-NEXT: params['Dense_0']['kernel'] f32[6,4] [0.03580{{[0-9]}}, -0.03081{{[0-9]}}, -0.22861{{[0-9]}}, 0.69945{{[0-9]}}, ...]
// CHECK-NEXT: output f32[4] [0.28892{{[0-9]}}, -0.87953{{[0-9]}}, 0.73466{{[0-9]}}, 0.13044{{[0-9]}}]
// CHECK-LABEL: == saved for the backward pass ==
// CHECK-NEXT: nothing_saveable: 4 residuals
// CHECK-NEXT: save_only_these_names(hidden): 5 residuals
