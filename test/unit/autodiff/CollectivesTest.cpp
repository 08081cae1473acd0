// The collectives on simulated groups of ranks (interp::runSpmd): each one
// against its definition, written out here over the ranks' operands, on
// groups of 1 to 8 ranks; the VJP of a program using all of them (their
// transposes: psum <-> psum, all_gather <-> psum_scatter, ppermute <->
// the reversed ppermute) against central finite differences of the whole
// group's <ct, f(x)> (f64), on groups of 1 to 8 ranks; and the errors
// of a collective run outside a group, over another axis, or with another
// axis size.
#include "AutodiffUtil.h"

#include "runtime/interpreter/Interpreter.h"
#include "runtime/interpreter/Spmd.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace autodiff;
using cotangent::interp::runSpmd;

namespace {

using Ranks = std::vector<std::vector<Tensor>>;

/// "[0, 1, 1, 2, ..., n-1, 0]": each rank sends to the next.
std::string ring(int n) {
  std::string perm;
  for (int r = 0; r < n; ++r)
    perm += (r ? ", " : "") + std::to_string(r) + ", " + std::to_string((r + 1) % n);
  return "[" + perm + "]";
}

std::string collectivesProgram(int n, const std::string &element) {
  return subst(R"(func.func @each(%x: tensor<$Nx3x$E>) -> (tensor<$Nx3x$E>, tensor<$Nx3x$E>,
    tensor<$Nx$Nx3x$E>, tensor<$NNx3x$E>, tensor<3x$E>, tensor<1x3x$E>, tensor<$Nx3x$E>, tensor<i32>) {
  %0 = jx.psum %x, axis = "r" : tensor<$Nx3x$E>
  %1 = jx.pmean %x, axis = "r" : tensor<$Nx3x$E>
  %2 = jx.all_gather %x, axis = "r"($N), dimension = 1 : tensor<$Nx3x$E> -> tensor<$Nx$Nx3x$E>
  %3 = jx.all_gather %x, axis = "r"($N), dimension = 0 tiled : tensor<$Nx3x$E> -> tensor<$NNx3x$E>
  %4 = jx.psum_scatter %x, axis = "r"($N), dimension = 0 : tensor<$Nx3x$E> -> tensor<3x$E>
  %5 = jx.psum_scatter %x, axis = "r"($N), dimension = 0 tiled : tensor<$Nx3x$E> -> tensor<1x3x$E>
  %6 = jx.ppermute %x, axis = "r", perm = $RING : tensor<$Nx3x$E>
  %7 = jx.axis_index axis = "r" : tensor<i32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<$Nx3x$E>, tensor<$Nx3x$E>, tensor<$Nx$Nx3x$E>,
    tensor<$NNx3x$E>, tensor<3x$E>, tensor<1x3x$E>, tensor<$Nx3x$E>, tensor<i32>
})",
               {{"NN", std::to_string(n * n)},
                {"N", std::to_string(n)},
                {"E", element},
                {"RING", ring(n)}});
}

/// A program whose gradient runs through every transpose, with nonlinear
/// ops around the collectives so that residuals cross them.
std::string gradientProgram(int n) {
  return subst(R"(func.func @f(%x: tensor<$Nx3xf64>) -> (tensor<$Nx3xf64>, tensor<$Nx$Nx3xf64>,
    tensor<3xf64>, tensor<$Nx3xf64>, tensor<$Nx3xf64>) {
  %s = jx.sin %x : tensor<$Nx3xf64>
  %p = jx.psum %s, axis = "r" : tensor<$Nx3xf64>
  %m = jx.pmean %p, axis = "r" : tensor<$Nx3xf64>
  %0 = jx.mul %m, %x : tensor<$Nx3xf64>
  %g = jx.all_gather %s, axis = "r"($N), dimension = 1 : tensor<$Nx3xf64> -> tensor<$Nx$Nx3xf64>
  %1 = jx.tanh %g : tensor<$Nx$Nx3xf64>
  %sq = jx.mul %x, %x : tensor<$Nx3xf64>
  %2 = jx.psum_scatter %sq, axis = "r"($N), dimension = 0 : tensor<$Nx3xf64> -> tensor<3xf64>
  %t = jx.all_gather %x, axis = "r"($N), dimension = 0 tiled : tensor<$Nx3xf64> -> tensor<$NNx3xf64>
  %e = jx.exp %t : tensor<$NNx3xf64>
  %3 = jx.psum_scatter %e, axis = "r"($N), dimension = 0 tiled : tensor<$NNx3xf64> -> tensor<$Nx3xf64>
  %pp = jx.ppermute %s, axis = "r", perm = $RING : tensor<$Nx3xf64>
  %4 = jx.mul %pp, %x : tensor<$Nx3xf64>
  return %0, %1, %2, %3, %4 : tensor<$Nx3xf64>, tensor<$Nx$Nx3xf64>, tensor<3xf64>,
    tensor<$Nx3xf64>, tensor<$Nx3xf64>
})",
               {{"NN", std::to_string(n * n)}, {"N", std::to_string(n)}, {"RING", ring(n)}});
}

mlir::func::FuncOp function(mlir::ModuleOp module, const std::string &name) {
  auto fn = module.lookupSymbol<mlir::func::FuncOp>(name);
  REQUIRE(fn);
  return fn;
}

Ranks runOn(mlir::ModuleOp module, const std::string &name, const Ranks &args) {
  auto out = runSpmd(function(module, name), "r", args);
  REQUIRE(mlir::succeeded(out));
  return *out;
}

/// Element (i, j) of rank r's operand.
double at(const Ranks &x, int r, int i, int j) { return x[r][0].getDouble(i * 3 + j); }

/// Σ_r <ct_r, f(x_r)> over the group.
double pairing(const Ranks &cts, const Ranks &outs) {
  double sum = 0;
  for (size_t r = 0; r < outs.size(); ++r)
    for (size_t k = 0; k < outs[r].size(); ++k)
      for (int64_t i = 0; i < outs[r][k].getNumElements(); ++i)
        sum += cts[r][k].getDouble(i) * outs[r][k].getDouble(i);
  return sum;
}

} // namespace

TEST_CASE("each collective is its definition on groups of 1 to 8 ranks", "[collectives]") {
  for (int n = 1; n <= 8; ++n) {
    DYNAMIC_SECTION(n << " ranks") {
      auto module = parse(collectivesProgram(n, "f32"));
      std::mt19937_64 rng(n);
      Ranks x;
      for (int r = 0; r < n; ++r)
        x.push_back({random("tensor<" + std::to_string(n) + "x3xf32>", rng)});
      Ranks out = runOn(*module, "each", x);
      auto close = [](double got, double want) {
        return std::fabs(got - want) <= 1e-6 * (1 + std::fabs(want));
      };
      for (int r = 0; r < n; ++r) {
        INFO("rank " << r);
        const std::vector<Tensor> &o = out[r];
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < 3; ++j) {
            double sum = 0;
            for (int s = 0; s < n; ++s)
              sum += at(x, s, i, j);
            CHECK(close(o[0].getDouble(i * 3 + j), sum));       // psum
            CHECK(close(o[1].getDouble(i * 3 + j), sum / n));   // pmean
            for (int s = 0; s < n; ++s) {
              // all_gather, a new dimension 1: [i][s][j] is rank s's [i][j].
              CHECK(o[2].getDouble((i * n + s) * 3 + j) == at(x, s, i, j));
              // tiled along 0: rank s's rows come s-th.
              CHECK(o[3].getDouble((s * n + i) * 3 + j) == at(x, s, i, j));
            }
            // ppermute along the ring: rank r holds rank r-1's operand.
            CHECK(o[6].getDouble(i * 3 + j) == at(x, (r + n - 1) % n, i, j));
          }
        for (int j = 0; j < 3; ++j) {
          double mine = 0;
          for (int s = 0; s < n; ++s)
            mine += at(x, s, r, j);
          CHECK(close(o[4].getDouble(j), mine)); // psum_scatter: row r of the sum
          CHECK(close(o[5].getDouble(j), mine)); // tiled: block r (one row)
        }
        CHECK(o[7].getInt(0) == r); // axis_index
      }
    }
  }
}

TEST_CASE("the collectives' VJPs are their transposes: finite differences over the group",
          "[collectives][grad]") {
  for (int n = 1; n <= 8; ++n) {
    DYNAMIC_SECTION(n << " ranks") {
      auto module = parse(gradientProgram(n));
      differentiate(*module, /*remat=*/false);
      std::mt19937_64 rng(40 + n);
      const std::string type = "tensor<" + std::to_string(n) + "x3xf64>";
      Ranks x, cts;
      for (int r = 0; r < n; ++r) {
        x.push_back({random(type, rng)});
        std::vector<Tensor> ct;
        for (mlir::RankedTensorType t : resultTypes(*module, "f"))
          ct.push_back(random(t, rng));
        cts.push_back(ct);
      }
      // The split run on every rank: forward, residuals held, backward.
      Ranks forward = runOn(*module, "f_fwd", x);
      const size_t outputs = cts[0].size();
      Ranks backwardArgs;
      for (int r = 0; r < n; ++r) {
        std::vector<Tensor> args(forward[r].begin() + outputs, forward[r].end());
        args.insert(args.end(), cts[r].begin(), cts[r].end());
        backwardArgs.push_back(args);
      }
      Ranks grads = runOn(*module, "f_bwd", backwardArgs);
      const double h = 1e-6;
      for (int r = 0; r < n; ++r)
        for (int k = 0; k < 3 * n; ++k) {
          Ranks plus = x, minus = x;
          plus[r][0] = plus[r][0].clone();
          minus[r][0] = minus[r][0].clone();
          plus[r][0].setDouble(k, x[r][0].getDouble(k) + h);
          minus[r][0].setDouble(k, x[r][0].getDouble(k) - h);
          double fd = (pairing(cts, runOn(*module, "f", plus)) -
                       pairing(cts, runOn(*module, "f", minus))) /
                      (2 * h);
          double vjp = grads[r][0].getDouble(k);
          INFO("rank " << r << ", element " << k << ": vjp " << vjp << ", finite differences "
                       << fd);
          CHECK(std::fabs(vjp - fd) <= 1e-6 * (1 + std::fabs(vjp)));
        }
    }
  }
}

TEST_CASE("a collective outside a group, over another axis or size, is an error at the op",
          "[collectives]") {
  auto module = parse(collectivesProgram(2, "f32"));
  std::mt19937_64 rng(3);
  Tensor x = random("tensor<2x3xf32>", rng);
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&context(), [&](mlir::Diagnostic &d) {
    errors += d.str() + "\n";
    return mlir::success();
  });
  auto each = function(*module, "each");
  SECTION("outside runSpmd") {
    CHECK(mlir::failed(cotangent::interp::run(each, {x})));
    CHECK_THAT(errors, Catch::Contains("a collective over mesh axis 'r' needs a group of ranks: "
                                       "run the function with interp::runSpmd"));
  }
  SECTION("another axis") {
    CHECK(mlir::failed(runSpmd(each, "data", Ranks{{x}, {x}})));
    CHECK_THAT(errors, Catch::Contains("is over mesh axis 'r', but the ranks run along 'data'"));
  }
  SECTION("another axis size") {
    CHECK(mlir::failed(runSpmd(each, "r", Ranks{{x}, {x}, {x}})));
    CHECK_THAT(errors, Catch::Contains("axis_size is 2 but the group along 'r' has 3 ranks"));
  }
  SECTION("no ranks") {
    CHECK(mlir::failed(runSpmd(each, "r", Ranks{})));
    CHECK_THAT(errors, Catch::Contains("runSpmd needs at least one rank"));
  }
}
