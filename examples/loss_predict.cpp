//===- loss_predict.cpp - named values and every policy that reads names --===//
//
// The tutorial's squared-error loss over a small sin network, first as is,
// then with each layer's output named by checkpoint_name("layer<i>_output"),
// differentiated under every policy: what each one lets the forward pass
// keep, what it offloads to host memory, and that the gradients never change.
//
// The CHECK lines at the end are the expected output (ctest -L examples).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

using namespace cotangent;
using examples::section;

namespace {

Tensor layer(Tensor W, Tensor x) { return np::sin(np::dot(W, x)); }

/// All weights but the last are sin layers; the last is a plain product.
/// With `named`, each layer's output is tagged for the policies.
Tensor predict(const std::vector<Tensor> &params, Tensor x, bool named) {
  for (size_t i = 0; i + 1 < params.size(); ++i) {
    x = layer(params[i], x);
    if (named)
      x = checkpoint_name(x, "layer" + std::to_string(i) + "_output");
  }
  return np::dot(params.back(), x);
}

Tensor loss(std::vector<Tensor> params, Tensor x, Tensor y) {
  return np::sum(np::power(predict(params, x, false) - y, 2));
}

Tensor loss_named(std::vector<Tensor> params, Tensor x, Tensor y) {
  return np::sum(np::power(predict(params, x, true) - y, 2));
}

const TraceOptions lossOptions{.name = "loss", .arg_names = {"params", "x", "y"}};
const std::vector<Spec> Params{f32({4, 4}), f32({4, 4}), f32({4, 4})};

template <class F>
Split split(const F &fn) {
  return vjp(lossOptions, fn, Params, f32({4}), f32({4}));
}

} // namespace

int main() {
  section("loss, no checkpoint");
  std::cout << split(loss).print_saved_residuals();
  section("loss under dots_with_no_batch_dims_saveable");
  std::cout << split(checkpoint(loss, {.policy = policies::dots_with_no_batch_dims_saveable()}))
                   .print_saved_residuals();
  section("loss with named layer outputs, no checkpoint");
  std::cout << split(loss_named).print_saved_residuals();

  const std::string host = "pinned_host";
  std::vector<Policy> all{
      policies::everything_saveable(),
      policies::nothing_saveable(),
      policies::dots_saveable(),
      policies::save_only_these_names({"layer0_output"}),
      policies::save_any_names_but_these({"layer1_output"}),
      policies::save_anything_except_these_names({"layer1_output"}),
      policies::save_and_offload_only_these_names({"layer0_output"}, {"layer1_output"}, "device",
                                                  host),
      policies::offload_dot_with_no_batch_dims("device", host),
      // JAX's save_from_both_policies refuses offloading policies; ours
      // takes the union: save beats offload beats recompute.
      policies::save_from_both_policies(
          policies::save_only_these_names({"layer1_output"}),
          policies::save_and_offload_only_these_names({}, {"layer0_output"}, "device", host)),
      policies::save_from_both_policies(policies::save_only_these_names({"layer0_output"}),
                                        policies::offload_dot_with_no_batch_dims("device", host)),
  };
  for (const Policy &policy : all) {
    section("loss with named layer outputs under " + policy.str());
    std::cout << split(checkpoint(loss_named, {.policy = policy})).print_saved_residuals();
  }

  // The same report as JSON, for tools (--jx-print-saved-residuals=format=json).
  section("JSON report, save_and_offload_only_these_names");
  Split offloaded = split(checkpoint(loss_named, {.policy = all[6]}));
  std::string json;
  llvm::raw_string_ostream os(json);
  llvm::json::Array report;
  report.push_back(mlir::cotangent::residualsJson("loss", offloaded.saved_residuals()));
  mlir::cotangent::printJsonReport(std::move(report), os);
  std::cout << json;

  // Gradients: the same bits under every policy.
  section("gradients");
  mlir::MLIRContext ctx;
  auto w0 = examples::filled(ctx, {4, 4}, 10), w1 = examples::filled(ctx, {4, 4}, 11),
       w2 = examples::filled(ctx, {4, 4}, 12), x = examples::filled(ctx, {4}, 13),
       y = examples::filled(ctx, {4}, 14);
  // grad takes positional tensors; the list of weights is rebuilt inside.
  auto flat = [](auto fn) {
    return [fn](Tensor a, Tensor b, Tensor c, Tensor x, Tensor y) {
      return fn(std::vector<Tensor>{a, b, c}, x, y);
    };
  };
  auto [value, grads] = value_and_grad(flat(loss_named))(w0, w1, w2, x, y);
  std::cout << "loss " << examples::head(value) << "\n";
  for (size_t i = 0; i < 3; ++i)
    std::cout << "d params[" << i << "] sum " << examples::total(grads[i]) << "\n";
  for (const Policy &policy : all) {
    auto g = grad(flat(checkpoint(loss_named, {.policy = policy})))(w0, w1, w2, x, y);
    std::cout << policy.str() << ": "
              << (examples::sameBits(g, grads) ? "identical" : "DIFFERENT") << "\n";
  }
  return 0;
}

// The expected output, checked by FileCheck (ctest -L examples):
// CHECK-LABEL: == loss, no checkpoint ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] output of sin from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of cos from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of sin from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of cos from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of mul from {{.*}}loss_predict.cpp:{{[0-9]+}} (loss)
// CHECK-NEXT: total: 9 residuals, 288 bytes
// CHECK-LABEL: == loss under dots_with_no_batch_dims_saveable ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: total: 8 residuals, 272 bytes
// CHECK-LABEL: == loss with named layer outputs, no checkpoint ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] output of cos from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] named 'layer0_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: f32[4] output of cos from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] named 'layer1_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: f32[4] output of mul from {{.*}}loss_predict.cpp:{{[0-9]+}} (loss_named)
// CHECK-NEXT: total: 9 residuals, 288 bytes
// CHECK-LABEL: == loss with named layer outputs under everything_saveable ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] output of cos from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] named 'layer0_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: f32[4] output of cos from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] named 'layer1_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: f32[4] output of mul from {{.*}}loss_predict.cpp:{{[0-9]+}} (loss_named)
// CHECK-NEXT: total: 9 residuals, 288 bytes
// CHECK-LABEL: == loss with named layer outputs under nothing_saveable ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: total: 5 residuals, 224 bytes
// CHECK-LABEL: == loss with named layer outputs under dots_saveable ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: total: 8 residuals, 272 bytes
// CHECK-LABEL: == loss with named layer outputs under save_only_these_names('layer0_output') ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: f32[4] named 'layer0_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: total: 6 residuals, 240 bytes
// CHECK-LABEL: == loss with named layer outputs under save_any_names_but_these('layer1_output') ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: f32[4] named 'layer0_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: total: 6 residuals, 240 bytes
// CHECK-LABEL: == loss with named layer outputs under save_anything_except_these_names('layer1_output') ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] output of cos from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] named 'layer0_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: f32[4] output of sin from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of cos from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer)
// CHECK-NEXT: f32[4] output of mul from {{.*}}loss_predict.cpp:{{[0-9]+}} (loss_named)
// CHECK-NEXT: total: 9 residuals, 288 bytes
// CHECK-LABEL: == loss with named layer outputs under save_and_offload_only_these_names(['layer0_output'], ['layer1_output'], 'device', 'pinned_host') ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: f32[4] named 'layer0_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: f32[4] named 'layer1_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict) [offloaded to pinned_host]
// CHECK-NEXT: total: 7 residuals, 256 bytes (16 offloaded)
// CHECK-LABEL: == loss with named layer outputs under offload_dot_with_no_batch_dims('device', 'pinned_host') ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer) [offloaded to pinned_host]
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer) [offloaded to pinned_host]
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict) [offloaded to pinned_host]
// CHECK-NEXT: total: 8 residuals, 272 bytes (48 offloaded)
// CHECK-LABEL: == loss with named layer outputs under save_from_both_policies(save_only_these_names('layer1_output'), save_and_offload_only_these_names([], ['layer0_output'], 'device', 'pinned_host')) ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: f32[4] named 'layer0_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict) [offloaded to pinned_host]
// CHECK-NEXT: f32[4] named 'layer1_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: total: 7 residuals, 256 bytes (16 offloaded)
// CHECK-LABEL: == loss with named layer outputs under save_from_both_policies(save_only_these_names('layer0_output'), offload_dot_with_no_batch_dims('device', 'pinned_host')) ==
// CHECK-NEXT: f32[4,4] from the argument params[0]
// CHECK-NEXT: f32[4,4] from the argument params[1]
// CHECK-NEXT: f32[4,4] from the argument params[2]
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[4] from the argument y
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer) [offloaded to pinned_host]
// CHECK-NEXT: f32[4] named 'layer0_output' from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict)
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (layer) [offloaded to pinned_host]
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}loss_predict.cpp:{{[0-9]+}} (predict) [offloaded to pinned_host]
// CHECK-NEXT: total: 9 residuals, 288 bytes (48 offloaded)
// CHECK-LABEL: == JSON report, save_and_offload_only_these_names ==
// CHECK-NEXT: [
// CHECK-NEXT:   {
// CHECK-NEXT:     "function": "loss",
// CHECK-NEXT:     "residuals": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "bytes": 64,
// CHECK-NEXT:         "kind": "argument",
// CHECK-NEXT:         "type": "f32[4,4]",
// CHECK-NEXT:         "what": "params[0]"
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "bytes": 64,
// CHECK-NEXT:         "kind": "argument",
// CHECK-NEXT:         "type": "f32[4,4]",
// CHECK-NEXT:         "what": "params[1]"
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "bytes": 64,
// CHECK-NEXT:         "kind": "argument",
// CHECK-NEXT:         "type": "f32[4,4]",
// CHECK-NEXT:         "what": "params[2]"
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "bytes": 16,
// CHECK-NEXT:         "kind": "argument",
// CHECK-NEXT:         "type": "f32[4]",
// CHECK-NEXT:         "what": "x"
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "bytes": 16,
// CHECK-NEXT:         "kind": "argument",
// CHECK-NEXT:         "type": "f32[4]",
// CHECK-NEXT:         "what": "y"
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "bytes": 16,
// CHECK-NEXT:         "kind": "named",
// CHECK-NEXT:         "location": "{{.*}}loss_predict.cpp:{{[0-9]+}} (predict)",
// CHECK-NEXT:         "type": "f32[4]",
// CHECK-NEXT:         "what": "layer0_output"
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "bytes": 16,
// CHECK-NEXT:         "kind": "named",
// CHECK-NEXT:         "location": "{{.*}}loss_predict.cpp:{{[0-9]+}} (predict)",
// CHECK-NEXT:         "memory_kind": "pinned_host",
// CHECK-NEXT:         "type": "f32[4]",
// CHECK-NEXT:         "what": "layer1_output"
// CHECK-NEXT:       }
// CHECK-NEXT:     ],
// CHECK-NEXT:     "total_bytes": 256
// CHECK-NEXT:   }
// CHECK-NEXT: ]
// CHECK-LABEL: == gradients ==
// CHECK-NEXT: loss [6.5654{{[0-9]*}}]
// CHECK-NEXT: d params[0] sum 6.5009{{[0-9]*}}
// CHECK-NEXT: d params[1] sum 3.6140{{[0-9]*}}
// CHECK-NEXT: d params[2] sum 11.5927{{[0-9]*}}
// CHECK-NEXT: everything_saveable: identical
// CHECK-NEXT: nothing_saveable: identical
// CHECK-NEXT: dots_saveable: identical
// CHECK-NEXT: save_only_these_names('layer0_output'): identical
// CHECK-NEXT: save_any_names_but_these('layer1_output'): identical
// CHECK-NEXT: save_anything_except_these_names('layer1_output'): identical
// CHECK-NEXT: save_and_offload_only_these_names(['layer0_output'], ['layer1_output'], 'device', 'pinned_host'): identical
// CHECK-NEXT: offload_dot_with_no_batch_dims('device', 'pinned_host'): identical
// CHECK-NEXT: save_from_both_policies(save_only_these_names('layer1_output'), save_and_offload_only_these_names([], ['layer0_output'], 'device', 'pinned_host')): identical
// CHECK-NEXT: save_from_both_policies(save_only_these_names('layer0_output'), offload_dot_with_no_batch_dims('device', 'pinned_host')): identical
