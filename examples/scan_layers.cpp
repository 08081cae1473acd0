//===- scan_layers.cpp - a stack of layers as one scan --------------------===//
//
// Sixteen dense+relu layers written as a scan over stacked weights and
// biases. Differentiating a scan saves, per iteration, what the body's
// backward needs: the report lists those residuals with their stacked shape
// ([16, ...]). Checkpointing the body with dots_with_no_batch_dims_saveable
// keeps the products and recomputes the rest; a checkpoint schedule
// (ScanOptions::checkpoint_lengths) nests the loop so that only one carry per
// chunk is kept. Every variant computes the same gradients, bit for bit.
//
// The CHECK lines at the end are the expected output (ctest -L examples).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "passes/remat/ScanSchedule.h"

using namespace cotangent;
using examples::section;

namespace {

constexpr int64_t Layers = 16, Width = 8;

using WB = std::pair<Tensor, Tensor>;

/// One layer: the carry is the activation, the scanned input one (W, b).
std::pair<Tensor, None> layer(Tensor x, WB W_b) {
  auto [W, b] = W_b;
  return {np::maximum(np::dot(x, W) + b, 0.0), None{}};
}

/// The network over a body (plain or checkpointed) and a scan schedule.
template <class Body>
auto network(Body body, std::vector<int64_t> lengths = {}) {
  return [body, lengths](Tensor all_weights, Tensor all_biases, Tensor x) {
    auto [out, ys] = scan(body, x, WB{all_weights, all_biases},
                          {.checkpoint_lengths = lengths, .name = "layer"});
    return np::sum(out);
  };
}

const TraceOptions netOptions{.name = "net", .arg_names = {"all_weights", "all_biases", "x"}};

template <class F>
Split split(const F &fn) {
  return vjp(netOptions, fn, f32({Layers, Width, Width}), f32({Layers, Width}), f32({Width}));
}

std::vector<int64_t> vec(llvm::ArrayRef<int64_t> a) { return {a.begin(), a.end()}; }

std::string str(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

} // namespace

int main() {
  auto plain = [](Tensor x, WB W_b) { return layer(x, W_b); };
  auto remat = checkpoint(plain);
  auto dots = checkpoint(plain, {.policy = policies::dots_with_no_batch_dims_saveable()});

  section("the traced network (checkpointed body)");
  std::cout << trace(netOptions, network(dots), f32({Layers, Width, Width}), f32({Layers, Width}),
                     f32({Width}))
                   .jaxpr();

  section("plain body");
  std::cout << split(network(plain)).print_saved_residuals();
  section("body under checkpoint (nothing_saveable)");
  std::cout << split(network(remat)).print_saved_residuals();
  section("body under dots_with_no_batch_dims_saveable");
  std::cout << split(network(dots)).print_saved_residuals();

  // Schedules from passes/remat/ScanSchedule.h: a snapshot every 2 iterations,
  // about sqrt(L) chunks of sqrt(L), and log(L) levels of halving.
  std::vector<std::pair<std::string, std::vector<int64_t>>> schedules{
      {"every 2", vec(*mlir::cotangent::everyKLengths(Layers, 2))},
      {"sqrt", vec(mlir::cotangent::sqrtLengths(Layers))},
      {"recursive", vec(mlir::cotangent::recursiveLengths(Layers))},
  };
  for (const auto &[what, lengths] : schedules) {
    section("plain body, checkpoint_lengths = " + str(lengths) + " (" + what + ")");
    std::cout << split(network(plain, lengths)).print_saved_residuals();
  }
  section("body under dots_with_no_batch_dims_saveable, checkpoint_lengths = [4, 4]");
  std::cout << split(network(dots, {4, 4})).print_saved_residuals();

  section("gradients");
  mlir::MLIRContext ctx;
  auto ws = examples::filled(ctx, {Layers, Width, Width}, 20, 1.0),
       bs = examples::filled(ctx, {Layers, Width}, 21, 0.1),
       x = examples::filled(ctx, {Width}, 22);
  auto [value, grads] = value_and_grad(network(plain))(ws, bs, x);
  std::cout << "sum of the output " << examples::head(value) << "\n";
  const char *names[] = {"all_weights", "all_biases", "x"};
  for (size_t i = 0; i < grads.size(); ++i)
    std::cout << "d " << names[i] << " " << examples::typeOf(grads[i]) << " "
              << examples::head(grads[i], 3) << "\n";
  auto same = [&](const std::string &what, const std::vector<interp::Tensor> &g) {
    std::cout << what << ": " << (examples::sameBits(g, grads) ? "identical" : "DIFFERENT") << "\n";
  };
  same("nothing_saveable body", grad(network(remat))(ws, bs, x));
  same("dots_with_no_batch_dims_saveable body", grad(network(dots))(ws, bs, x));
  for (const auto &[what, lengths] : schedules)
    same("schedule " + str(lengths), grad(network(plain, lengths))(ws, bs, x));
  same("dots body, schedule [4, 4]", grad(network(dots, {4, 4}))(ws, bs, x));
  return 0;
}

// The expected output, checked by FileCheck (ctest -L examples):
// CHECK-LABEL: == the traced network (checkpointed body) ==
// CHECK-NEXT: { lambda ; a:f32[16,8,8] b:f32[16,8] c:f32[8]. let
// CHECK-NEXT:     d:f32[8] = scan[
// CHECK-LABEL: == plain body ==
// CHECK-NEXT: f32[16,8,8] from the argument all_weights
// CHECK-NEXT: f32[16,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), the carry at each iteration
// CHECK-NEXT: f32[16,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), one output of select_n from {{.*}}scan_layers.cpp:{{[0-9]+}} (layer) per iteration
// CHECK-NEXT: total: 3 residuals, 5120 bytes
// CHECK-LABEL: == body under checkpoint (nothing_saveable) ==
// CHECK-NEXT: f32[16,8,8] from the argument all_weights
// CHECK-NEXT: f32[16,8] from the argument all_biases
// CHECK-NEXT: f32[16,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), the carry at each iteration
// CHECK-NEXT: total: 3 residuals, 5120 bytes
// CHECK-LABEL: == body under dots_with_no_batch_dims_saveable ==
// CHECK-NEXT: f32[16,8,8] from the argument all_weights
// CHECK-NEXT: f32[16,8] from the argument all_biases
// CHECK-NEXT: f32[16,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), the carry at each iteration
// CHECK-NEXT: f32[16,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), one output of dot_general from {{.*}}scan_layers.cpp:{{[0-9]+}} (layer) per iteration
// CHECK-NEXT: total: 4 residuals, 5632 bytes
// CHECK-LABEL: == plain body, checkpoint_lengths = [8, 2] (every 2) ==
// CHECK-NEXT: f32[16,8,8] from the argument all_weights
// CHECK-NEXT: f32[16,8] from the argument all_biases
// CHECK-NEXT: f32[8,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), the carry at each iteration (schedule [8, 2]: at most 10 carries live, 16 iterations recomputed)
// CHECK-NEXT: total: 3 residuals, 4864 bytes
// CHECK-LABEL: == plain body, checkpoint_lengths = [4, 4] (sqrt) ==
// CHECK-NEXT: f32[16,8,8] from the argument all_weights
// CHECK-NEXT: f32[16,8] from the argument all_biases
// CHECK-NEXT: f32[4,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), the carry at each iteration (schedule [4, 4]: at most 8 carries live, 16 iterations recomputed)
// CHECK-NEXT: total: 3 residuals, 4736 bytes
// CHECK-LABEL: == plain body, checkpoint_lengths = [2, 2, 2, 2] (recursive) ==
// CHECK-NEXT: f32[16,8,8] from the argument all_weights
// CHECK-NEXT: f32[16,8] from the argument all_biases
// CHECK-NEXT: f32[2,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), the carry at each iteration (schedule [2, 2, 2, 2]: at most 8 carries live, 48 iterations recomputed)
// CHECK-NEXT: total: 3 residuals, 4672 bytes
// CHECK-LABEL: == body under dots_with_no_batch_dims_saveable, checkpoint_lengths = [4, 4] ==
// CHECK-NEXT: f32[16,8,8] from the argument all_weights
// CHECK-NEXT: f32[16,8] from the argument all_biases
// CHECK-NEXT: f32[4,8] stacked by the scan from {{.*}}scan_layers.cpp:{{[0-9]+}} (net), the carry at each iteration (schedule [4, 4]: at most 8 carries live, 16 iterations recomputed)
// CHECK-NEXT: total: 3 residuals, 4736 bytes
// CHECK-LABEL: == gradients ==
// CHECK-NEXT: sum of the output [10.9152{{[0-9]*}}]
// CHECK-NEXT: d all_weights f32[16,8,8] [-1.9456{{[0-9]*}}, 0.0410{{[0-9]*}}, -4.4823{{[0-9]*}}, ...]
// CHECK-NEXT: d all_biases f32[16,8] [2.2691{{[0-9]*}}, -0.0478{{[0-9]*}}, 5.2277{{[0-9]*}}, ...]
// CHECK-NEXT: d x f32[8] [-5.7358{{[0-9]*}}, 2.7935{{[0-9]*}}, -0.2825{{[0-9]*}}, ...]
// CHECK-NEXT: nothing_saveable body: identical
// CHECK-NEXT: dots_with_no_batch_dims_saveable body: identical
// CHECK-NEXT: schedule [8, 2]: identical
// CHECK-NEXT: schedule [4, 4]: identical
// CHECK-NEXT: schedule [2, 2, 2, 2]: identical
// CHECK-NEXT: dots body, schedule [4, 4]: identical
