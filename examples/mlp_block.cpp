//===- mlp_block.cpp - a checkpointed Dense -> relu -> Dense block --------===//
//
// The article's example: a two-layer block, wrapped in `checkpoint`, inside
// a model whose summed output is differentiated with `grad`. Without the
// checkpoint the forward pass keeps the block's 512-wide hidden activation
// (and relu's mask) for the backward pass; with it, only the block's inputs
// are kept and the hidden layer is recomputed. The gradients are the same.
//
// The CHECK lines at the end are the expected output (ctest -L examples).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

using namespace cotangent;
using examples::section;

namespace {

using Params = std::map<std::string, Tensor>;

/// Several layers' worth of work: Dense(512) -> relu -> Dense(128).
Tensor compute_intensive_block(Tensor x, Params params) {
  x = np::dot(x, params["w1"]) + params["b1"];
  x = np::relu(x);
  return np::dot(x, params["w2"]) + params["b2"];
}

/// The model: earlier layers would come before, later ones after.
template <class Block>
auto model(Block block) {
  return [block](Tensor x, std::map<std::string, Params> all_params) {
    Tensor intermediate_output = x;
    return block(intermediate_output, all_params["block_params"]);
  };
}

const TraceOptions lossOptions{.name = "loss", .arg_names = {"all_params", "x"}};

template <class Block>
Split split(Block block) {
  auto loss = [m = model(block)](std::map<std::string, Params> p, Tensor data) {
    return np::sum(m(data, p));
  };
  std::map<std::string, std::map<std::string, Spec>> specs{
      {"block_params",
       {{"w1", f32({128, 512})}, {"b1", f32({512})}, {"w2", f32({512, 128})}, {"b2", f32({128})}}}};
  return vjp(lossOptions, loss, specs, f32({1, 128}));
}

} // namespace

int main() {
  auto plain = [](Tensor x, Params p) { return compute_intensive_block(x, p); };
  auto checkpointed = checkpoint(plain);

  section("without checkpoint");
  std::cout << split(plain).print_saved_residuals();
  section("with checkpoint");
  std::cout << split(checkpointed).print_saved_residuals();
  section("with checkpoint under dots_saveable");
  std::cout << split(checkpoint(plain, {.policy = policies::dots_saveable()})).print_saved_residuals();

  // jax.grad(lambda p, data: jnp.sum(model(data, p))): argnums 0, so the
  // gradient is a tree shaped like the parameters.
  auto grad_fn = [](auto block) {
    return grad([m = model(block)](std::map<std::string, Params> p,
                                   Tensor data) { return np::sum(m(data, p)); },
                argnums<0>);
  };
  mlir::MLIRContext ctx;
  std::map<std::string, std::map<std::string, interp::Tensor>> params{
      {"block_params",
       {{"w1", examples::filled(ctx, {128, 512}, 30, 0.1)},
        {"b1", examples::constant(ctx, {512}, 0.0)},
        {"w2", examples::filled(ctx, {512, 128}, 31, 0.1)},
        {"b2", examples::constant(ctx, {128}, 0.0)}}}};
  auto x = examples::constant(ctx, {1, 128}, 1.0);
  auto gradients = grad_fn(checkpointed)(params, x).at("block_params");
  auto plainGradients = grad_fn(plain)(params, x).at("block_params");
  section("gradients");
  bool same = true;
  for (const char *name : {"w1", "b1", "w2", "b2"}) {
    const interp::Tensor &g = gradients.at(name);
    std::cout << "d " << name << " " << examples::typeOf(g) << " " << examples::head(g, 3)
              << " sum " << examples::total(g) << "\n";
    same = same && examples::sameBits(g, plainGradients.at(name));
  }
  std::cout << "same as without checkpoint: " << (same ? "identical" : "DIFFERENT") << "\n";
  std::cout << "Gradients computed successfully.\n";
  return 0;
}

// The expected output, checked by FileCheck (ctest -L examples):
// CHECK-LABEL: == without checkpoint ==
// CHECK-NEXT: f32[128,512] from the argument all_params['block_params']['w1']
// CHECK-NEXT: f32[512,128] from the argument all_params['block_params']['w2']
// CHECK-NEXT: f32[1,128] from the argument x
// CHECK-NEXT: f32[1,512] output of max from {{.*}}mlp_block.cpp:{{[0-9]+}} (compute_intensive_block)
// CHECK-NEXT: f32[1,512] output of select_n from {{.*}}mlp_block.cpp:{{[0-9]+}} (compute_intensive_block)
// CHECK-NEXT: total: 5 residuals, 528896 bytes
// CHECK-LABEL: == with checkpoint ==
// CHECK-NEXT: f32[512] from the argument all_params['block_params']['b1']
// CHECK-NEXT: f32[128,512] from the argument all_params['block_params']['w1']
// CHECK-NEXT: f32[512,128] from the argument all_params['block_params']['w2']
// CHECK-NEXT: f32[1,128] from the argument x
// CHECK-NEXT: total: 4 residuals, 526848 bytes
// CHECK-LABEL: == with checkpoint under dots_saveable ==
// CHECK-NEXT: f32[512] from the argument all_params['block_params']['b1']
// CHECK-NEXT: f32[128,512] from the argument all_params['block_params']['w1']
// CHECK-NEXT: f32[512,128] from the argument all_params['block_params']['w2']
// CHECK-NEXT: f32[1,128] from the argument x
// CHECK-NEXT: f32[1,512] output of dot_general from {{.*}}mlp_block.cpp:{{[0-9]+}} (compute_intensive_block)
// CHECK-NEXT: total: 5 residuals, 528896 bytes
// CHECK-LABEL: == gradients ==
// CHECK-NEXT: d w1 f32[128,512] [-0.0221{{[0-9]*}}, -0.0555{{[0-9]*}}, -0.4964{{[0-9]*}}, ...] sum -1404.2166{{[0-9]*}}
// CHECK-NEXT: d b1 f32[512] [-0.0221{{[0-9]*}}, -0.0555{{[0-9]*}}, -0.4964{{[0-9]*}}, ...] sum -10.9704{{[0-9]*}}
// CHECK-NEXT: d w2 f32[512,128] [0.3089{{[0-9]*}}, 0.3089{{[0-9]*}}, 0.3089{{[0-9]*}}, ...] sum 18777.1581{{[0-9]*}}
// CHECK-NEXT: d b2 f32[128] [1.0000{{[0-9]*}}, 1.0000{{[0-9]*}}, 1.0000{{[0-9]*}}, ...] sum 128.0000{{[0-9]*}}
// CHECK-NEXT: same as without checkpoint: identical
// CHECK-NEXT: Gradients computed successfully.
