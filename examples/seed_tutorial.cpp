//===- seed_tutorial.cpp - where checkpoints go and what they save --------===//
//
// The tutorial's running example in C++: g(W, x) = sin(W . x), and f chains
// three g's. For each placement of `checkpoint` and each policy this prints
// what the forward pass saves for the backward pass (after --jx-vjp and
// --jx-remat ran), shows forward and backward side by side, and checks that
// every variant computes the same gradients, bit for bit.
//
// The CHECK lines below are the expected output; ctest runs this program
// through FileCheck against them.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

using namespace cotangent;
using examples::section;

namespace {

Tensor g(Tensor W, Tensor x) { return np::sin(np::dot(W, x)); }

// The four ways of writing f that the tutorial compares.
Tensor f(Tensor W1, Tensor W2, Tensor W3, Tensor x) { return g(W3, g(W2, g(W1, x))); }

Tensor f_each(Tensor W1, Tensor W2, Tensor W3, Tensor x) {
  auto cg = checkpoint(g);
  return cg(W3, cg(W2, cg(W1, x)));
}

Tensor f_last(Tensor W1, Tensor W2, Tensor W3, Tensor x) {
  return checkpoint(g)(W3, g(W2, g(W1, x)));
}

Tensor f_named(Tensor W1, Tensor W2, Tensor W3, Tensor x) {
  x = checkpoint_name(g(W1, x), "a");
  x = checkpoint_name(g(W2, x), "b");
  return checkpoint_name(g(W3, x), "c");
}

const TraceOptions fOptions{.name = "f", .arg_names = {"W1", "W2", "W3", "x"}};
const Spec W1 = f32({5, 4}), W2 = f32({6, 5}), W3 = f32({7, 6}), X = f32({4});

template <class F>
Split split(const F &fn) {
  return vjp(fOptions, fn, W1, W2, W3, X);
}

void report(const std::string &title, const Split &s) {
  section(title);
  std::cout << s.print_saved_residuals();
}

} // namespace

int main() {
  // 1. Tracing: f as a jaxpr.
  section("f traced");
  std::cout << trace(fOptions, f, W1, W2, W3, X).jaxpr();

  // 2. Placement.
  report("no checkpoint", split(f));
  report("checkpoint on each g", split(f_each));
  report("checkpoint on the whole f", split(checkpoint(f)));
  report("checkpoint on the last g only", split(f_last));

  // 3. Policies.
  auto dots = policies::dots_with_no_batch_dims_saveable();
  report("f under dots_with_no_batch_dims_saveable", split(checkpoint(f, {.policy = dots})));
  report("names a, b, c, no checkpoint", split(f_named));
  for (const char *name : {"a", "b", "c"}) {
    auto policy = policies::save_only_these_names({name});
    report("names a, b, c under " + policy.str(), split(checkpoint(f_named, {.policy = policy})));
  }

  // 4. Forward and backward side by side.
  section("forward and backward, no checkpoint");
  std::cout << split(f).print_fwd_bwd(DumpSyntax::Jaxpr, 160);
  section("forward and backward, dots_with_no_batch_dims_saveable");
  std::cout << split(checkpoint(f, {.policy = dots})).print_fwd_bwd(DumpSyntax::Jaxpr, 160);

  // 5. Gradients of sum(f(...)): the same numbers whatever is saved.
  section("gradients of sum(f(W1, W2, W3, x))");
  mlir::MLIRContext ctx;
  auto w1 = examples::filled(ctx, {5, 4}, 1), w2 = examples::filled(ctx, {6, 5}, 2),
       w3 = examples::filled(ctx, {7, 6}, 3), x = examples::filled(ctx, {4}, 4);
  auto loss = [](auto fn) {
    return [fn](Tensor W1, Tensor W2, Tensor W3, Tensor x) { return np::sum(fn(W1, W2, W3, x)); };
  };
  auto [value, grads] = value_and_grad(loss(f))(w1, w2, w3, x);
  std::cout << "value " << examples::head(value) << "\n";
  const char *names[] = {"W1", "W2", "W3", "x"};
  for (size_t i = 0; i < grads.size(); ++i)
    std::cout << "d" << names[i] << " " << examples::typeOf(grads[i]) << " "
              << examples::head(grads[i]) << " sum " << examples::total(grads[i]) << "\n";
  auto same = [&](const char *what, std::vector<interp::Tensor> other) {
    std::cout << what << ": " << (examples::sameBits(grads, other) ? "identical" : "DIFFERENT")
              << "\n";
  };
  same("checkpoint on each g", grad(loss(f_each))(w1, w2, w3, x));
  same("checkpoint on the whole f", grad(loss(checkpoint(f)))(w1, w2, w3, x));
  same("checkpoint on the last g", grad(loss(f_last))(w1, w2, w3, x));
  same("dots_with_no_batch_dims_saveable",
       grad(loss(checkpoint(f, {.policy = dots})))(w1, w2, w3, x));
  same("save_only_these_names('a')",
       grad(loss(checkpoint(f_named, {.policy = policies::save_only_these_names({"a"})})))(
           w1, w2, w3, x));
  return 0;
}

// The expected output, checked by FileCheck (ctest -L examples):
// CHECK-LABEL: == f traced ==
// CHECK-NEXT: { lambda ; a:f32[5,4] b:f32[6,5] c:f32[7,6] d:f32[4]. let
// CHECK-NEXT:     e:f32[5] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a d
// CHECK-NEXT:     f:f32[5] = sin e
// CHECK-NEXT:     g:f32[6] = dot_general[dimension_numbers=(([1], [0]), ([], []))] b f
// CHECK-NEXT:     h:f32[6] = sin g
// CHECK-NEXT:     i:f32[7] = dot_general[dimension_numbers=(([1], [0]), ([], []))] c h
// CHECK-NEXT:     j:f32[7] = sin i
// CHECK-NEXT:   in (j,) }
// CHECK-LABEL: == no checkpoint ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[5] output of sin from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[5] output of cos from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[6] output of sin from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[6] output of cos from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[7] output of cos from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: total: 9 residuals, 500 bytes
// CHECK-LABEL: == checkpoint on each g ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[5] output of sin from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[6] output of sin from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: total: 6 residuals, 428 bytes
// CHECK-LABEL: == checkpoint on the whole f ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: total: 4 residuals, 384 bytes
// CHECK-LABEL: == checkpoint on the last g only ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[5] output of sin from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[5] output of cos from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[6] output of sin from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[6] output of cos from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: total: 8 residuals, 472 bytes
// CHECK-LABEL: == f under dots_with_no_batch_dims_saveable ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[5] output of dot_general from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[6] output of dot_general from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[7] output of dot_general from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: total: 7 residuals, 456 bytes
// CHECK-LABEL: == names a, b, c, no checkpoint ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[5] output of cos from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[5] named 'a' from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (f_named)
// CHECK-NEXT: f32[6] output of cos from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: f32[6] named 'b' from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (f_named)
// CHECK-NEXT: f32[7] output of cos from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (g)
// CHECK-NEXT: total: 9 residuals, 500 bytes
// CHECK-LABEL: == names a, b, c under save_only_these_names('a') ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[5] named 'a' from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (f_named)
// CHECK-NEXT: total: 5 residuals, 404 bytes
// CHECK-LABEL: == names a, b, c under save_only_these_names('b') ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: f32[6] named 'b' from {{.*}}seed_tutorial.cpp:{{[0-9]+}} (f_named)
// CHECK-NEXT: total: 5 residuals, 408 bytes
// CHECK-LABEL: == names a, b, c under save_only_these_names('c') ==
// CHECK-NEXT: f32[5,4] from the argument W1
// CHECK-NEXT: f32[6,5] from the argument W2
// CHECK-NEXT: f32[7,6] from the argument W3
// CHECK-NEXT: f32[4] from the argument x
// CHECK-NEXT: total: 4 residuals, 384 bytes
// CHECK-LABEL: == forward and backward, no checkpoint ==
// CHECK-NEXT: forward @f_fwd                                                                 | backward @f_bwd
// CHECK-NEXT: ------------------------------------------------------------------------------ | ------------------------------------------------------------------------------
// CHECK-LABEL: == forward and backward, dots_with_no_batch_dims_saveable ==
// CHECK-NEXT: forward @f_fwd                                                                 | backward @f_bwd
// CHECK-NEXT: ------------------------------------------------------------------------------ | ------------------------------------------------------------------------------
// CHECK: {{.*}} | i:f32[7] = optimization_barrier g
// CHECK: {{.*}} | l:f32[6] = optimization_barrier f
// CHECK: {{.*}} | r:f32[5] = optimization_barrier e
// CHECK-LABEL: == gradients of sum(f(W1, W2, W3, x)) ==
// CHECK-NEXT: value [1.2172{{[0-9]*}}]
// CHECK-NEXT: dW1 f32[5,4] [0.9361{{[0-9]*}}, 1.1169{{[0-9]*}}, -0.6931{{[0-9]*}}, -1.8883{{[0-9]*}}, ...] sum 0.0265{{[0-9]*}}
// CHECK-NEXT: dW2 f32[6,5] [-0.2868{{[0-9]*}}, -0.2659{{[0-9]*}}, -0.5189{{[0-9]*}}, -0.4524{{[0-9]*}}, ...] sum -0.9425{{[0-9]*}}
// CHECK-NEXT: dW3 f32[7,6] [0.0978{{[0-9]*}}, -0.1616{{[0-9]*}}, -0.1297{{[0-9]*}}, 0.5278{{[0-9]*}}, ...] sum 8.8737{{[0-9]*}}
// CHECK-NEXT: dx f32[4] [0.9332{{[0-9]*}}, -1.5517{{[0-9]*}}, 1.0808{{[0-9]*}}, -1.2492{{[0-9]*}}] sum -0.7868{{[0-9]*}}
// CHECK-NEXT: checkpoint on each g: identical
// CHECK-NEXT: checkpoint on the whole f: identical
// CHECK-NEXT: checkpoint on the last g: identical
// CHECK-NEXT: dots_with_no_batch_dims_saveable: identical
// CHECK-NEXT: save_only_these_names('a'): identical
