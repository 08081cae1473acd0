//===- recursive_checkpoint.cpp - O(log D) residuals for a chain of D ops -===//
//
// A chain of D sins saves one cos per sin: D residuals. Splitting the chain
// in halves and checkpointing the half that runs first, recursively, leaves
// only the values at the split points and the innermost pair's factors:
// the count grows by one each time D doubles. The price is recomputation in
// the backward pass, visible in the side-by-side dump for D = 8. The
// gradient is the plain chain's, bit for bit.
//
// The CHECK lines at the end are the expected output (ctest -L examples).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <functional>

using namespace cotangent;
using examples::section;

namespace {

using Fn = std::function<Tensor(Tensor)>;

/// Applies funs in order: the last one first, as f1(f2(x)) does.
Fn chain_compose(std::vector<Fn> funs) {
  return [funs](Tensor x) {
    for (const Fn &fun : funs)
      x = fun(x);
    return x;
  };
}

/// f1(checkpoint(f2)(x)) with f1, f2 the two halves, each built the same way.
Fn recursive_checkpoint(const std::vector<Fn> &funs) {
  if (funs.size() == 1)
    return funs[0];
  if (funs.size() == 2) {
    Fn f1 = funs[0], f2 = funs[1];
    return [=](Tensor x) { return f1(f2(x)); };
  }
  size_t half = funs.size() / 2;
  Fn f1 = recursive_checkpoint({funs.begin(), funs.begin() + half});
  Fn f2 = recursive_checkpoint({funs.begin() + half, funs.end()});
  return [=](Tensor x) { return f1(checkpoint(f2)(x)); };
}

const Fn sine = [](Tensor x) { return np::sin(x); };
const TraceOptions fOptions{.name = "f", .arg_names = {"x"}};

} // namespace

int main() {
  section("residual counts");
  for (int D : {8, 16, 32, 64}) {
    std::vector<Fn> sins(D, sine);
    size_t plain = vjp(fOptions, chain_compose(sins), f32({})).saved_residuals().size();
    size_t nested = vjp(fOptions, recursive_checkpoint(sins), f32({})).saved_residuals().size();
    std::cout << "D = " << D << ": chain " << plain << ", recursive checkpoint " << nested << "\n";
  }

  section("D = 8, chain");
  std::vector<Fn> eight(8, sine);
  std::cout << vjp(fOptions, chain_compose(eight), f32({})).print_saved_residuals();
  section("D = 8, recursive checkpoint");
  Split nested = vjp(fOptions, recursive_checkpoint(eight), f32({}));
  std::cout << nested.print_saved_residuals();
  section("D = 16, recursive checkpoint");
  std::cout << vjp(fOptions, recursive_checkpoint(std::vector<Fn>(16, sine)), f32({}))
                   .print_saved_residuals();

  section("D = 8, recursive checkpoint: forward and backward");
  std::cout << nested.print_fwd_bwd(DumpSyntax::Jaxpr, 120);

  section("gradients at x = 3");
  mlir::MLIRContext ctx;
  auto x = examples::constant(ctx, {}, 3.0);
  for (int D : {8, 16, 32, 64}) {
    std::vector<Fn> sins(D, sine);
    auto plain = grad(chain_compose(sins))(x);
    auto remat = grad(recursive_checkpoint(sins))(x);
    std::cout << "D = " << D << ": d/dx " << examples::head(plain[0]) << ", recursive checkpoint "
              << (examples::sameBits(plain, remat) ? "identical" : "DIFFERENT") << "\n";
  }
  return 0;
}

// The expected output, checked by FileCheck (ctest -L examples):
// CHECK-LABEL: == residual counts ==
// CHECK-NEXT: D = 8: chain 8, recursive checkpoint 4
// CHECK-NEXT: D = 16: chain 16, recursive checkpoint 5
// CHECK-NEXT: D = 32: chain 32, recursive checkpoint 6
// CHECK-NEXT: D = 64: chain 64, recursive checkpoint 7
// CHECK-LABEL: == D = 8, chain ==
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: total: 8 residuals, 32 bytes
// CHECK-LABEL: == D = 8, recursive checkpoint ==
// CHECK-NEXT: f32[] from the argument x
// CHECK-NEXT: f32[] output of sin from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: total: 4 residuals, 16 bytes
// CHECK-LABEL: == D = 16, recursive checkpoint ==
// CHECK-NEXT: f32[] from the argument x
// CHECK-NEXT: f32[] output of sin from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of sin from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: f32[] output of cos from {{.*}}recursive_checkpoint.cpp:{{[0-9]+}} (f)
// CHECK-NEXT: total: 5 residuals, 20 bytes
// CHECK-LABEL: == D = 8, recursive checkpoint: forward and backward ==
// CHECK-NEXT: forward @f_fwd                                             | backward @f_bwd
// CHECK-NEXT: ---------------------------------------------------------- | ----------------------------------------------------------
// CHECK: {{.*}} | h:f32[] = optimization_barrier b
// CHECK: {{.*}} | n:f32[] = optimization_barrier a
// CHECK-LABEL: == gradients at x = 3 ==
// CHECK-NEXT: D = 8: d/dx [-0.9243{{[0-9]*}}], recursive checkpoint identical
// CHECK-NEXT: D = 16: d/dx [-0.8578{{[0-9]*}}], recursive checkpoint identical
// CHECK-NEXT: D = 32: d/dx [-0.7464{{[0-9]*}}], recursive checkpoint identical
// CHECK-NEXT: D = 64: d/dx [-0.5846{{[0-9]*}}], recursive checkpoint identical
