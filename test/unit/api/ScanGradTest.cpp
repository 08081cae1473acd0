// Scan and cond under VJP and remat, numerically: an L-layer network written
// as a scan has the same gradients as the unrolled loop, with or without a
// checkpointed body or a checkpoint schedule; residual bytes follow the
// closed forms (linear in L, one carry per chunk with a schedule), and the
// interpreter's peak memory shrinks accordingly.
#include "tracer/Autodiff.h"
#include "passes/remat/ScanSchedule.h"

#include "RandomTensor.h"

#include <catch2/catch.hpp>

#include <random>

using namespace cotangent;

namespace {

constexpr int64_t H = 4;
/// The recurrent network of the memory test: 400 steps of width 16.
constexpr int64_t kSteps = 400, kWidth = 16;

Tensor layer(Tensor h, Tensor w) { return np::tanh(np::dot(w, h)); }

/// loss(ws, h0) = sum(h_L) with h_{i+1} = layer(h_i, ws[i]), as a scan.
auto scanned(ScanOptions opts = {}, std::optional<Policy> bodyPolicy = std::nullopt) {
  return [opts, bodyPolicy](Tensor ws, Tensor h0) {
    auto body = [&](Tensor h, Tensor w) {
      Tensor next = bodyPolicy ? checkpoint(layer, {.policy = *bodyPolicy})(h, w) : layer(h, w);
      return std::pair{next, None{}};
    };
    return np::sum(scan(body, h0, ws, opts).first);
  };
}

bool identical(const std::vector<interp::Tensor> &a, const std::vector<interp::Tensor> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t k = 0; k < a.size(); ++k)
    for (int64_t i = 0; i < a[k].getNumElements(); ++i)
      if (a[k].getDouble(i) != b[k].getDouble(i))
        return false;
  return true;
}

/// Bytes of the residuals that are not arguments (what the forward adds).
int64_t savedIntermediateBytes(const Split &s) {
  int64_t bytes = 0;
  for (const Residual &r : s.saved_residuals())
    if (r.kind != Residual::Kind::Argument)
      bytes += r.bytes;
  return bytes;
}

} // namespace

TEST_CASE("scan gradients equal the unrolled loop's and finite differences", "[scan][grad]") {
  mlir::MLIRContext ctx;
  const int64_t L = 6;
  interp::Tensor ws = randomTensor(ctx, {L, H, H}, 1), h0 = randomTensor(ctx, {H}, 2);
  auto unrolled = [](Tensor ws, Tensor h) {
    for (int64_t i = 0; i < L; ++i)
      h = layer(h, ws[i]);
    return np::sum(h);
  };
  auto [value, grads] = value_and_grad(scanned())(ws, h0);
  auto [uvalue, ugrads] = value_and_grad(unrolled)(ws, h0);
  CHECK(value.getDouble(0) == Approx(uvalue.getDouble(0)).epsilon(1e-14));
  REQUIRE(grads.size() == 2);
  for (size_t k = 0; k < 2; ++k)
    for (int64_t i = 0; i < grads[k].getNumElements(); ++i)
      CHECK(grads[k].getDouble(i) == Approx(ugrads[k].getDouble(i)).epsilon(1e-12).margin(1e-15));
  // Central differences on h0.
  for (int64_t i = 0; i < H; ++i) {
    interp::Tensor plus = h0.clone(), minus = h0.clone();
    plus.setDouble(i, h0.getDouble(i) + 1e-6);
    minus.setDouble(i, h0.getDouble(i) - 1e-6);
    double fd = (value_and_grad(scanned())(ws, plus).first.getDouble(0) -
                 value_and_grad(scanned())(ws, minus).first.getDouble(0)) / 2e-6;
    CHECK(grads[1].getDouble(i) == Approx(fd).epsilon(1e-6).margin(1e-9));
  }
}

TEST_CASE("checkpointed bodies and schedules leave gradients bit-identical", "[scan][remat]") {
  mlir::MLIRContext ctx;
  const int64_t L = 12;
  interp::Tensor ws = randomTensor(ctx, {L, H, H}, 3), h0 = randomTensor(ctx, {H}, 4);
  std::vector<interp::Tensor> plain = grad(scanned())(ws, h0);
  CHECK(identical(plain, grad(scanned({}, policies::nothing_saveable()))(ws, h0)));
  CHECK(identical(plain, grad(scanned({}, policies::dots_with_no_batch_dims_saveable()))(ws, h0)));
  CHECK(identical(plain, grad(scanned({.checkpoint_lengths = {3, 4}}))(ws, h0)));
  CHECK(identical(plain, grad(scanned({.checkpoint_lengths = {3, 2, 2}}))(ws, h0)));
  CHECK(identical(plain, grad(scanned({.reverse = true}))(ws, h0)) == false); // a different function
}

TEST_CASE("cond gradients follow the branch taken", "[cond][grad]") {
  mlir::MLIRContext ctx;
  auto f = [](Tensor p, Tensor x) {
    return np::sum(cond(p, [](Tensor v) { return np::sin(v); }, [](Tensor v) { return np::exp(v); }, x));
  };
  interp::Tensor x = randomTensor(ctx, {H}, 5);
  auto boolType = mlir::RankedTensorType::get({}, mlir::IntegerType::get(&ctx, 1));
  for (int taken : {0, 1}) {
    interp::Tensor p = interp::Tensor::fromInts(boolType, {taken});
    std::vector<interp::Tensor> g = grad(f)(p, x);
    for (int64_t i = 0; i < H; ++i) {
      double v = x.getDouble(i);
      CHECK(g[1].getDouble(i) == Approx(taken ? std::cos(v) : std::exp(v)).epsilon(1e-14));
    }
  }
}

TEST_CASE("residual bytes follow the closed forms for L up to 1000", "[scan][schedule]") {
  const int64_t carryBytes = H * 4; // f32
  for (int64_t L : {10, 100, 1000}) {
    INFO("L = " << L);
    // No checkpoint: per iteration, the carry and tanh's derivative factor.
    Split plain = vjp(scanned(), f32({L, H, H}), f32({H}));
    CHECK(savedIntermediateBytes(plain) == 2 * carryBytes * L);
    // A nothing_saveable body keeps only the carry.
    Split body = vjp(scanned({}, policies::nothing_saveable()), f32({L, H, H}), f32({H}));
    CHECK(savedIntermediateBytes(body) == carryBytes * L);
    // sqrt schedule: one carry per chunk, about sqrt(L) chunks.
    auto lengths = mlir::cotangent::sqrtLengths(L);
    Split sq = vjp(scanned({.checkpoint_lengths = {lengths.begin(), lengths.end()}}),
                   f32({L, H, H}), f32({H}));
    CHECK(savedIntermediateBytes(sq) == carryBytes * lengths.front());
    CHECK(lengths.front() * lengths.front() <= 4 * L);
    // Recursive schedule: the forward keeps one carry per top-level chunk,
    // and at most sum(prime factors) = O(log L) carries are ever live.
    auto factors = mlir::cotangent::recursiveLengths(L);
    Split rec = vjp(scanned({.checkpoint_lengths = {factors.begin(), factors.end()}}),
                    f32({L, H, H}), f32({H}));
    CHECK(savedIntermediateBytes(rec) == carryBytes * factors.front());
    int64_t live = 0;
    for (int64_t f : factors)
      live += f;
    CHECK(live <= 5 * static_cast<int64_t>(std::log2(L) + 1));
    CHECK_THAT(rec.print_saved_residuals(),
               Catch::Contains("carries live") && Catch::Contains("iterations recomputed"));
  }
}

TEST_CASE("peak memory in the interpreter: linear without remat, smaller with schedules",
          "[scan][schedule][memory]") {
  // One weight vector shared by every iteration (a const of the scan), so
  // that the per-iteration residuals, not the weights, dominate memory. Each
  // level of a schedule also holds an accumulator of the const's cotangent.
  mlir::MLIRContext ctx;
  interp::Tensor w = randomTensor(ctx, {kWidth}, 6), h0 = randomTensor(ctx, {kWidth}, 7);
  auto recurrent = [](ScanOptions opts) {
    return [opts](Tensor w, Tensor h0) {
      auto body = [&](Tensor h, None) { return std::pair{np::tanh(h * w), None{}}; };
      ScanOptions o = opts;
      o.length = kSteps;
      return np::sum(scan(body, h0, None{}, o).first);
    };
  };
  auto peak = [&](ScanOptions opts, std::vector<interp::Tensor> *grads) {
    TraceOptions traceOpts;
    traceOpts.context = &ctx;
    Split s(trace(traceOpts, recurrent(opts), specOf(w), specOf(h0)));
    interp::MemoryStats stats;
    *grads = evaluate(s, s.value_and_grad(), {w, h0}, &stats);
    return stats.peakBytes;
  };
  std::vector<interp::Tensor> g0, g1, g2;
  int64_t plain = peak({}, &g0);
  int64_t sqrtPeak = peak({.checkpoint_lengths = {20, 20}}, &g1);
  int64_t recursive = peak({.checkpoint_lengths = {5, 5, 2, 2, 2, 2}}, &g2);
  INFO("peak bytes: plain " << plain << ", sqrt " << sqrtPeak << ", recursive " << recursive);
  // The const's cotangent is summed chunk by chunk: the same sum in another
  // order, so equal up to rounding; the carry's cotangent is bit-identical.
  for (auto *g : {&g1, &g2}) {
    for (int64_t i = 0; i < kWidth; ++i) {
      CHECK((*g)[2].getDouble(i) == g0[2].getDouble(i));
      CHECK((*g)[1].getDouble(i) == Approx(g0[1].getDouble(i)).epsilon(1e-12));
    }
  }
  const int64_t vector = kWidth * 8;
  // Without remat: two vectors per iteration (carry and tanh's factor).
  CHECK(plain >= 2 * kSteps * vector);
  // sqrt: 20 carries saved plus one chunk's 2 x 20 residuals, and overheads.
  CHECK(sqrtPeak < plain / 4);
  // recursive: at most 5+5+2+2+2+2 = 18 carries plus a chunk of 2.
  CHECK(recursive < sqrtPeak);
}
