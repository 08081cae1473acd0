//===- mlp_step.cpp - a program that uses an installed Cotangent ----------===//
//
// What a new user writes: makes its data as host arrays, trains a two-layer
// 4-class MLP classifier (its hidden layer checkpointed under
// dots_saveable) with AdamW, a warmup-cosine learning rate and gradient
// clipping, the whole training step -- loss, gradient, update -- one jitted
// function with the parameters and optimizer state donated, and prints what
// the step saves for its backward pass, the peak bytes it measured and the
// step's report (residuals, donations, measured and predicted peak). No MLIR name appears: arrays come from
// tracer/Array.h. It includes only installed headers and links only
// Cotangent::jit; its compiled gradient is checked within the bounds the
// interpreter derives for it.
//
// The CHECK lines at the end are the expected output.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/ErrorBound.h"
#include "tracer/Array.h"
#include "tracer/Checkpoint.h"
#include "tracer/Jit.h"
#include "tracer/Nn.h"
#include "tracer/Numpy.h"
#include "tracer/optim/Transforms.h"

#include <cmath>
#include <cstdio>
#include <iostream>

using namespace cotangent;

namespace {

using Params = std::map<std::string, Tensor>;

Tensor mlp(Tensor w1, Tensor w2, Tensor x) {
  Tensor h = nn::gelu(np::dot(x, w1));
  return np::dot(h, w2);
}

/// Softmax cross-entropy of the logits against one-hot labels, averaged.
Tensor loss(const Params &p, Tensor x, Tensor labels) {
  auto layer = checkpoint(mlp, {.policy = policies::dots_saveable()});
  Tensor logits = layer(p.at("w1"), p.at("w2"), x) + p.at("b");
  return -np::mean(np::sum(nn::one_hot(labels, 4) * nn::log_softmax(logits), -1));
}

/// Values in [-scale, scale] from a fixed sequence: the same on every machine.
interp::Tensor filled(const Shape &shape, double scale, double phase) {
  return array::from_function(shape, [&](int64_t i) { return scale * std::sin(0.37 * i + phase); });
}

} // namespace

int main() {
  // 64 points of 16 features in 4 classes (the class: which quarter of the
  // features carries the largest sum).
  interp::Tensor x = filled({64, 16}, 1.0, 0.1);
  std::vector<int32_t> classes(64);
  for (int64_t i = 0; i < 64; ++i) {
    std::span<const float> row = array::view<float>(x).subspan(static_cast<size_t>(i) * 16, 16);
    float best = -1e30f;
    for (int32_t c = 0; c < 4; ++c) {
      float s = row[4 * c] + row[4 * c + 1] + row[4 * c + 2] + row[4 * c + 3];
      if (s > best) {
        best = s;
        classes[static_cast<size_t>(i)] = c;
      }
    }
  }
  interp::Tensor labels = array::from(classes, {64});
  std::map<std::string, interp::Tensor> params = {
      {"w1", filled({16, 32}, 0.3, 0.7)}, {"w2", filled({32, 4}, 0.3, 1.3)}, {"b", array::zeros({4})}};

  std::cout << vjp({.name = "loss", .arg_names = {"params", "x", "labels"}}, loss, params, x, labels)
                   .print_saved_residuals();

  // AdamW without decay on the bias, a warmup-cosine learning rate,
  // gradients clipped at norm 1: optax's chain, traced.
  optim::GradientTransformation tx =
      optim::chain({optim::clip_by_global_norm(1.0),
                    optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 0.05, 5, 60), {}, 1e-4,
                                 [](const std::string &path) { return path != "['b']"; })});
  auto train_step = [&](const Params &p, const optim::State &s, Tensor in, Tensor target) {
    auto [value, grads] = value_and_grad(loss, argnums<0>)(p, in, target);
    auto [updates, next] = optim::update(tx, grads, s, p);
    return std::tuple{optim::apply_updates(p, updates), next, value};
  };
  optim::StateOf<interp::Tensor> state =
      jit([&](const Params &p) { return optim::init(tx, p); })(params);
  // Parameters and state donated (jax.jit's donate_argnums): the update is
  // written over them; the old arrays are gone after each call.
  auto step = jit(train_step, {.donate = {0, 1}});

  // The compiled gradient within the interpreter's derived bounds.
  auto grad_step = jit(grad(loss, argnums<0>));
  std::map<std::string, interp::Tensor> compiled = grad_step(params, x, labels);
  Split split = vjp(loss, params, x, labels);
  auto reference = interp::runWithErrorBounds(
      split.value_and_grad(), {params.at("b"), params.at("w1"), params.at("w2"), x, labels});
  bool within = succeeded(reference) && reference->size() == 6;
  size_t next = 1;
  for (const auto &[name, g] : compiled) // the dict's order: b, w1, w2
    within = within && !interp::outsideBound(g, (*reference)[next++]);
  std::printf("compiled vs interpreter: %zu gradients, %s\n", compiled.size(),
              within ? "within the derived bounds" : "DIFFER");

  double first = 0, last = 0;
  for (int i = 0; i < 60; ++i) {
    interp::Tensor value = array::zeros({});
    std::tie(params, state, value) = step(params, state, x, labels);
    (i == 0 ? first : last) = array::view<float>(value)[0];
  }
  std::printf("loss after 60 steps: %s\n", last < 0.5 * first ? "below half the first" : "NOT DOWN");
  std::printf("optimizer steps counted: %lld\n",
              static_cast<long long>(array::view<int32_t>(state.at("1/0/count"))[0]));
  std::printf("peak bytes of the compiled step: %s\n",
              step.last_stats().peakBytes > 0 ? "measured" : "MISSING");
  // The whole step as compiled: what its gradient keeps for the backward,
  // what is donated, its peak measured and predicted.
  std::cout << step.report();
  return within && last < 0.5 * first ? 0 : 1;
}

// CHECK: f32[16,32] from the argument params['w1']
// CHECK: total: {{[0-9]+}} residuals, {{[0-9]+}} bytes
// CHECK-NEXT: compiled vs interpreter: 3 gradients, within the derived bounds
// CHECK-NEXT: loss after 60 steps: below half the first
// CHECK-NEXT: optimizer steps counted: 60
// CHECK-NEXT: peak bytes of the compiled step: measured
// CHECK-NEXT: @jit: {{[0-9]+}} arguments, {{[0-9]+}} results
// CHECK-NEXT: gradient @grad_0 keeps for its backward:
// CHECK:      total: {{[0-9]+}} residuals, {{[0-9]+}} bytes
// CHECK-NEXT: donated: {{[0-9]+}} arguments, {{[0-9]+}} bytes (their results written over them)
// CHECK-NEXT: measured peak: [[PEAK:[0-9]+]] bytes allocated by the call
// CHECK-NEXT: memory plan of @jit (one call, on the CPU runtime)
// CHECK-NEXT: peak: [[PEAK]] bytes, in @jit
