// The minimum cut of min_residual_bytes (passes/remat/MinimumCut.h) against
// exhaustive search: on random small programs (at most 13 values, so every
// subset can be tried), the cut is a valid residual set (every needed value
// is saved or recomputable from saved values through recomputable ops) and
// no valid set has fewer bytes.
#include "AutodiffUtil.h"

#include "passes/remat/MinimumCut.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <catch2/catch.hpp>

#include <random>
#include <sstream>

using namespace autodiff;

namespace {

/// A random function of f32[2,2] and f32[2] values: elementwise ops and
/// broadcasts (recomputable), dots and reductions (not).
std::string randomProgram(std::mt19937_64 &rng, int numOps) {
  const char *m = "tensor<2x2xf32>", *v = "tensor<2xf32>";
  std::vector<std::string> mats{"%a0", "%a1"}, vecs{"%a2"};
  std::ostringstream os;
  os << "func.func @f(%a0: " << m << ", %a1: " << m << ", %a2: " << v << ") -> " << m << " {\n";
  auto pick = [&](const std::vector<std::string> &from) {
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
  };
  for (int i = 0; i < numOps; ++i) {
    std::string name = "%v" + std::to_string(i);
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0:
      os << "  " << name << " = jx.sin " << pick(mats) << " : " << m << "\n";
      mats.push_back(name);
      break;
    case 1:
      os << "  " << name << " = jx.mul " << pick(mats) << ", " << pick(mats) << " : " << m << "\n";
      mats.push_back(name);
      break;
    case 2:
      os << "  " << name << " = jx.dot_general " << pick(mats) << ", " << pick(mats)
         << ", contracting_dims = [1] x [0], batch_dims = [] x [] : " << m << ", " << m << " -> "
         << m << "\n";
      mats.push_back(name);
      break;
    case 3:
      os << "  " << name << " = jx.broadcast_in_dim " << pick(vecs) << ", dims = [1] : " << v
         << " -> " << m << "\n";
      mats.push_back(name);
      break;
    case 4:
      os << "  " << name << " = jx.reduce_sum " << pick(mats) << ", axes = [0] : " << m << " -> "
         << v << "\n";
      vecs.push_back(name);
      break;
    default:
      os << "  " << name << " = jx.exp " << pick(vecs) << " : " << v << "\n";
      vecs.push_back(name);
      break;
    }
  }
  os << "  return " << mats.back() << " : " << m << "\n}\n";
  return os.str();
}

int64_t bytesOf(mlir::Value v) {
  auto type = mlir::cast<mlir::RankedTensorType>(v.getType());
  return type.getNumElements() * 4;
}

} // namespace

TEST_CASE("min_residual_bytes: the cut is valid and as small as exhaustive search finds",
          "[remat][mincut][property]") {
  int checked = 0;
  for (int n = 0; n < 300; ++n) {
    std::mt19937_64 rng(7000 + n);
    std::string text = randomProgram(rng, std::uniform_int_distribution<int>(3, 10)(rng));
    INFO("program " << n << ":\n" << text);
    auto module = parse(text);
    auto fn = *module->getOps<mlir::func::FuncOp>().begin();
    mlir::Block &body = fn.getBody().front();

    std::vector<mlir::Value> values(body.args_begin(), body.args_end());
    for (mlir::Operation &op : body.without_terminator())
      values.push_back(op.getResult(0));
    REQUIRE(values.size() <= 13);
    std::vector<mlir::Value> needed;
    for (mlir::Value v : values)
      if (std::bernoulli_distribution(0.3)(rng))
        needed.push_back(v);
    if (needed.empty())
      needed.push_back(values.back());
    bool dots = n % 2;
    auto recomputable = [&](mlir::Operation *op) {
      return mlir::cotangent::isCheapToRecompute(op, dots);
    };

    // Whether every needed value can be had from `saved` (a bit set over `values`).
    auto valid = [&](uint32_t saved) {
      llvm::DenseMap<mlir::Value, bool> available;
      for (auto [i, v] : llvm::enumerate(values)) {
        bool have = saved >> i & 1;
        mlir::Operation *op = v.getDefiningOp();
        if (!have && op && recomputable(op))
          have = llvm::all_of(op->getOperands(), [&](mlir::Value u) { return available[u]; });
        available[v] = have;
      }
      return llvm::all_of(needed, [&](mlir::Value v) { return available[v]; });
    };
    auto bytes = [&](uint32_t saved) {
      int64_t total = 0;
      for (auto [i, v] : llvm::enumerate(values))
        if (saved >> i & 1)
          total += bytesOf(v);
      return total;
    };
    int64_t best = -1;
    for (uint32_t saved = 0; saved < (1u << values.size()); ++saved)
      if (valid(saved) && (best < 0 || bytes(saved) < best))
        best = bytes(saved);

    llvm::DenseSet<mlir::Value> cut = mlir::cotangent::minimumResidualCut(
        {&body, [](mlir::Operation *op) { return !op->hasTrait<mlir::OpTrait::IsTerminator>(); },
         recomputable, needed, [](mlir::Value) { return false; }});
    uint32_t cutBits = 0;
    for (auto [i, v] : llvm::enumerate(values))
      if (cut.contains(v))
        cutBits |= 1u << i;
    INFO("dots recomputable: " << dots << ", cut bytes " << bytes(cutBits) << ", best " << best);
    CHECK(valid(cutBits));
    CHECK(bytes(cutBits) == best);
    ++checked;
  }
  CHECK(checked == 300);
}
