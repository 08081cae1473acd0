//===- deep_remat_scan.cpp - 64 layers as Flax's remat_scan, three ways ---===//
//
// A deep stack of one Flax-style block (Dense, tanh) applied 64 times to a
// carry, written once with nn::remat_scan<Block>: its parameters are
// stacked [lengths..., shape] and drawn from Flax's keys, and its step is
// nested scans whose inner levels are checkpointed. With lengths {64} the
// one scan saves every iteration's activations; {8, 8} keeps 8 carries and
// recomputes each group of 8 in the backward; {4, 4, 4} keeps fewer still.
// For each it prints what the forward saves, the compiled step's measured
// peak, the loss and whether the compiled gradients equal the
// interpreter's. The loss is the same whatever the lengths: they change
// what is kept, not what is computed.
//
// The CHECK lines at the end are the expected output (ctest -L examples).
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "TanhBlock.h"

#include "tracer/Jit.h"
#include "tracer/Layers.h"
#include "tracer/Module.h"

#include <cmath>

using namespace cotangent;
using examples::Block;
using examples::section;
using nn::Dict;

namespace {

constexpr int64_t kBatch = 256, kWidth = 64;

struct Figures {
  int64_t activationBytes; ///< saved, beyond the parameters themselves
  int64_t peakBytes;
  double loss;
};

/// `params` (stacked for {64}) viewed with the leading axes `lengths`: the
/// same 64 layers in the same order, so every nesting computes one loss.
Dict<Dict<interp::Tensor>> nest(const Dict<Dict<interp::Tensor>> &params,
                                const std::vector<int64_t> &lengths) {
  return tree_map(
      [&](const interp::Tensor &leaf) {
        std::vector<int64_t> shape(lengths);
        shape.insert(shape.end(), leaf.getShape().begin() + 1, leaf.getShape().end());
        return leaf.withType(leaf.getType().clone(shape));
      },
      params);
}

Figures run(const Dict<Dict<interp::Tensor>> &flat, const std::vector<int64_t> &lengths,
            const interp::Tensor &x) {
  std::string label = "lengths {";
  for (size_t i = 0; i < lengths.size(); ++i)
    label += (i ? ", " : "") + std::to_string(lengths[i]);
  section(label + "}");
  auto stack = nn::remat_scan<Block>({.lengths = lengths})(kWidth);
  Dict<Dict<interp::Tensor>> params = nest(flat, lengths);
  std::cout << "kernel: " << examples::typeOf(params.at("Dense_0").at("kernel")) << "\n";
  int64_t paramBytes = 0;
  tree_map(
      [&](const interp::Tensor &leaf) {
        paramBytes += leaf.getByteSize();
        return leaf;
      },
      params);

  auto loss = [stack](const Dict<Dict<Tensor>> &p, Tensor in) {
    Tensor y = stack(p, in);
    return np::mean(y * y);
  };
  Split split = vjp({.name = "loss", .arg_names = {"params", "x"}, .context = x.getType().getContext()},
                    loss, params, x);
  Figures f{};
  for (const Residual &r : split.saved_residuals())
    f.activationBytes += r.bytes;
  f.activationBytes -= paramBytes; // the forward saves the stacked parameters whole
  std::cout << "saved beyond the parameters: " << f.activationBytes << " bytes\n";

  auto step = jit(value_and_grad(loss, argnums<0>));
  auto [value, grads] = step(params, x);
  bool agree = examples::withinDerivedBounds(split, grads, params, x);
  f.loss = value.getDouble(0);
  f.peakBytes = step.last_stats().peakBytes;
  std::printf("loss: %.6f\n", f.loss);
  std::cout << "compiled gradients vs the interpreter's: " << (agree ? "agree" : "DIFFER")
            << "\n";
  std::cout << "peak bytes of the compiled step: " << f.peakBytes << "\n";
  return f;
}

} // namespace

int main() {
  mlir::MLIRContext ctx;
  interp::Tensor x = examples::filled(ctx, {kBatch, kWidth}, 3);
  // Flax's init for lengths {64}: nn.remat_scan(Block, lengths=(64,)).
  nn::Scope root(ctx, random::PRNGKey(0));
  nn::Scope scope = root.child("Remat_scanBlock_0");
  auto params = nn::remat_scan<Block>({.lengths = {64}})(kWidth).init(scope, kWidth);
  Figures one = run(params, {64}, x);
  Figures two = run(params, {8, 8}, x);
  Figures three = run(params, {4, 4, 4}, x);
  section("what the nesting buys");
  std::cout << "same loss: " << (one.loss == two.loss && two.loss == three.loss ? "yes" : "NO")
            << "\n";
  std::cout << "saved activations {64} > {8, 8} > {4, 4, 4}: "
            << (one.activationBytes > two.activationBytes &&
                        two.activationBytes > three.activationBytes
                    ? "yes"
                    : "NO")
            << "\n";
  std::cout << "peak {64} > {8, 8}: " << (one.peakBytes > two.peakBytes ? "yes" : "NO") << "\n";
  return 0;
}

// The expected output (ctest -L examples): the same loss under every
// nesting; the saved activations shrink from 64 layers' to a few carries'.
// CHECK-LABEL: == lengths {64} ==
// CHECK-NEXT: kernel: f32[64,64,64]
// CHECK-NEXT: saved beyond the parameters: {{[0-9]+}} bytes
// CHECK-NEXT: loss: [[LOSS:[0-9.]+]]
// CHECK-NEXT: compiled gradients vs the interpreter's: agree
// CHECK-LABEL: == lengths {8, 8} ==
// CHECK-NEXT: kernel: f32[8,8,64,64]
// CHECK-NEXT: saved beyond the parameters: {{[0-9]+}} bytes
// CHECK-NEXT: loss: [[LOSS]]
// CHECK-NEXT: compiled gradients vs the interpreter's: agree
// CHECK-LABEL: == lengths {4, 4, 4} ==
// CHECK-NEXT: kernel: f32[4,4,4,64,64]
// CHECK-NEXT: saved beyond the parameters: {{[0-9]+}} bytes
// CHECK-NEXT: loss: [[LOSS]]
// CHECK-NEXT: compiled gradients vs the interpreter's: agree
// CHECK-LABEL: == what the nesting buys ==
// CHECK-NEXT: same loss: yes
// CHECK-NEXT: saved activations {64} > {8, 8} > {4, 4, 4}: yes
// CHECK-NEXT: peak {64} > {8, 8}: yes
