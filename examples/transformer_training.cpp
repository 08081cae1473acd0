//===- transformer_training.cpp - a transformer block trained per policy --===//
//
// A pre-LN transformer block (causal multi-head self-attention, a GELU MLP,
// residual connections) made of nn:: layers with Flax's names and
// initializers, its parameters a registered struct (a tree), trained for a
// few SGD steps on synthetic data under each checkpoint policy. For each
// policy it prints what the forward saves, the compiled step's measured
// peak, the loss at every step, and how far the compiled gradients are from
// the interpreter's. The losses are the same under every policy: a policy
// changes what is kept, never what is computed. With one block the saved
// bytes drop but the peak need not: nothing_saveable recomputes the whole
// block at the start of the backward, which then holds what the forward
// held. Over many blocks (bench/, docs/performance.md) the peak drops too.
//
// The CHECK lines at the end are the expected output (ctest -L examples).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tracer/Jit.h"
#include "tracer/Layers.h"
#include "tracer/Module.h"
#include "tracer/Nn.h"

#include <cmath>
#include <optional>

using namespace cotangent;
using examples::withinDerivedBounds;
using examples::section;
using nn::Dict;

/// The block's parameters, over any leaf type (host values, traced tensors).
template <class L>
struct BlockParams {
  Dict<L> LayerNorm_0;
  Dict<Dict<L>> MultiHeadDotProductAttention_0;
  Dict<L> LayerNorm_1;
  Dict<L> Dense_0;
  Dict<L> Dense_1;
};

template <class L>
struct cotangent::TreeFields<BlockParams<L>> {
  using P = BlockParams<L>;
  static constexpr auto fields = std::tuple{
      treeField("LayerNorm_0", &P::LayerNorm_0),
      treeField("MultiHeadDotProductAttention_0", &P::MultiHeadDotProductAttention_0),
      treeField("LayerNorm_1", &P::LayerNorm_1), treeField("Dense_0", &P::Dense_0),
      treeField("Dense_1", &P::Dense_1)};
  template <class M>
  using Rebind = BlockParams<M>;
};

namespace {

struct Block {
  int64_t heads;
  int64_t mlp;

  BlockParams<interp::Tensor> init(nn::Scope &scope, int64_t width) const {
    auto in = [&](const std::string &name) { return scope.child(name); };
    nn::Scope ln0 = in("LayerNorm_0"), attention = in("MultiHeadDotProductAttention_0"),
              ln1 = in("LayerNorm_1"), dense0 = in("Dense_0"), dense1 = in("Dense_1");
    return {nn::LayerNorm{}.init(ln0, width),
            nn::MultiHeadDotProductAttention{heads}.init(attention, width),
            nn::LayerNorm{}.init(ln1, width), nn::Dense{mlp}.init(dense0, width),
            nn::Dense{width}.init(dense1, mlp)};
  }

  Tensor operator()(const BlockParams<Tensor> &p, Tensor x) const {
    const int64_t seq = x.shape()[x.shape().size() - 2], width = x.shape().back();
    Tensor h = x + nn::MultiHeadDotProductAttention{heads}(p.MultiHeadDotProductAttention_0,
                                                          nn::LayerNorm{}(p.LayerNorm_0, x),
                                                          nn::make_causal_mask(seq));
    Tensor hidden = nn::gelu(nn::Dense{mlp}(p.Dense_0, nn::LayerNorm{}(p.LayerNorm_1, h)));
    return h + nn::Dense{width}(p.Dense_1, checkpoint_name(hidden, "mlp_hidden"));
  }
};

constexpr int64_t kBatch = 2, kSeq = 8, kWidth = 16, kSteps = 5;
constexpr double kLearningRate = 0.1;

/// Trains `model` from `params`, prints what the policy changes and returns
/// the residual bytes.
template <class Model>
int64_t train(const std::string &label, const Model &model, BlockParams<interp::Tensor> params,
           const interp::Tensor &x, const interp::Tensor &y) {
  section(label);
  auto loss = [model](BlockParams<Tensor> p, Tensor in, Tensor target) {
    Tensor d = model(p, in) - target;
    return np::mean(d * d);
  };
  Split split = vjp(
      {.name = "loss", .arg_names = {"params", "x", "y"}, .context = x.getType().getContext()}, loss,
      params, x, y);
  int64_t bytes = 0;
  for (const Residual &r : split.saved_residuals())
    bytes += r.bytes;
  std::cout << "saved: " << split.saved_residuals().size() << " residuals, " << bytes
            << " bytes\n";

  auto step = jit(value_and_grad(loss, argnums<0>, {.arg_names = {"params", "x", "y"}}));
  std::cout << "compiled gradients vs the interpreter's: "
            << (withinDerivedBounds(split, step(params, x, y).second, params, x, y) ? "agree"
                                                                                   : "DIFFER")
            << "\n";
  std::cout << "loss:";
  std::vector<double> losses;
  for (int64_t i = 0; i < kSteps; ++i) {
    auto [value, grads] = step(params, x, y);
    losses.push_back(value.getDouble(0));
    std::printf(" %.6f", losses.back());
    params = tree_map(
        [](const interp::Tensor &w, const interp::Tensor &g) {
          std::vector<double> next(static_cast<size_t>(w.getNumElements()));
          for (size_t k = 0; k < next.size(); ++k)
            next[k] = w.getDouble(static_cast<int64_t>(k)) -
                      kLearningRate * g.getDouble(static_cast<int64_t>(k));
          return interp::Tensor::fromDoubles(w.getType(), next);
        },
        params, grads);
  }
  bool decreasing = true;
  for (size_t i = 1; i < losses.size(); ++i)
    decreasing = decreasing && losses[i] < losses[i - 1];
  std::cout << "\nthe loss decreases at every step: " << (decreasing ? "yes" : "NO") << "\n";
  std::cout << "peak bytes of the compiled step: " << step.last_stats().peakBytes << "\n";
  return bytes;
}

} // namespace

int main() {
  mlir::MLIRContext ctx;
  Block block{/*heads=*/2, /*mlp=*/32};
  nn::Scope root(ctx, random::PRNGKey(0));
  BlockParams<interp::Tensor> params = block.init(root, kWidth);
  interp::Tensor x = examples::filled(ctx, {kBatch, kSeq, kWidth}, 1),
                 y = examples::filled(ctx, {kBatch, kSeq, kWidth}, 2, 0.5);

  int64_t all = train("no checkpoint", block, params, x, y);
  int64_t least = train(
      "nothing_saveable", nn::checkpoint<Block>({.policy = policies::nothing_saveable()})(block),
      params, x, y);
  int64_t dots = train("dots_saveable",
                       nn::checkpoint<Block>({.policy = policies::dots_saveable()})(block),
                       params, x, y);
  int64_t named = train(
      "save_only_these_names(mlp_hidden)",
      nn::checkpoint<Block>({.policy = policies::save_only_these_names({"mlp_hidden"})})(block),
      params, x, y);
  section("residual bytes");
  std::cout << "nothing_saveable < save_only_these_names < dots_saveable < no checkpoint: "
            << (least < named && named < dots && dots < all ? "yes" : "NO") << "\n";
  return 0;
}

// The expected output (ctest -L examples): the loss goes down, and every
// policy computes the same losses.
// CHECK-LABEL: == no checkpoint ==
// CHECK-NEXT: saved: {{[0-9]+}} residuals, {{[0-9]+}} bytes
// CHECK-NEXT: compiled gradients vs the interpreter's: agree
// CHECK-NEXT: loss: [[L0:[0-9.]+]] [[L1:[0-9.]+]] [[L2:[0-9.]+]] [[L3:[0-9.]+]] [[L4:[0-9.]+]]
// CHECK-NEXT: the loss decreases at every step: yes
// CHECK-NEXT: peak bytes of the compiled step: {{[0-9]+}}
// CHECK-LABEL: == nothing_saveable ==
// CHECK-NEXT: saved: {{[0-9]+}} residuals, {{[0-9]+}} bytes
// CHECK-NEXT: compiled gradients vs the interpreter's: agree
// CHECK-NEXT: loss: [[L0]] [[L1]] [[L2]] [[L3]] [[L4]]
// CHECK-LABEL: == dots_saveable ==
// CHECK-NEXT: saved: {{[0-9]+}} residuals, {{[0-9]+}} bytes
// CHECK-NEXT: compiled gradients vs the interpreter's: agree
// CHECK-NEXT: loss: [[L0]] [[L1]] [[L2]] [[L3]] [[L4]]
// CHECK-LABEL: == save_only_these_names(mlp_hidden) ==
// CHECK-NEXT: saved: {{[0-9]+}} residuals, {{[0-9]+}} bytes
// CHECK-NEXT: compiled gradients vs the interpreter's: agree
// CHECK-NEXT: loss: [[L0]] [[L1]] [[L2]] [[L3]] [[L4]]
// CHECK-LABEL: == residual bytes ==
// CHECK-NEXT: nothing_saveable < save_only_these_names < dots_saveable < no checkpoint: yes
