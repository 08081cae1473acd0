// tracer/Random.h against what JAX drew for the same keys and shapes
// (test/jax/reference/random.json, written by test/jax/gen_random_reference.py):
// keys, splits, folds, bits, uniform and bernoulli bit for bit; normal and
// truncated_normal within kNormalUlps (erf_inv goes through log1p, which XLA
// computes its own way). The traced draws (a key passed into a step) give
// the same bits, interpreted and compiled.
#include "Interpret.h"
#include "JaxReference.h"

#include "tracer/Errors.h"
#include "tracer/Jit.h"
#include "tracer/Random.h"

#include "mlir/IR/MLIRContext.h"

#include <bit>
#include <cmath>

using namespace cotangent;

namespace {

// Measured against JAX 0.10.2 on x86-64: at most 5 ulps, 88% bit-exact.
constexpr int64_t kNormalUlps = 6;

const llvm::json::Array &cases() { return jaxref::cases(COTANGENT_RANDOM_REFERENCE); }
using jaxref::integer;
using jaxref::integers;
using jaxref::ulpDistance;

random::Key keyOf(const std::vector<int64_t> &words) {
  return {static_cast<uint32_t>(words.at(0)), static_cast<uint32_t>(words.at(1))};
}

/// The key a draw case used: PRNGKey(seed) folded with the case's index.
random::Key drawKey(const llvm::json::Object &o) {
  return random::fold_in(random::PRNGKey(integer(o, "seed")),
                         static_cast<uint32_t>(integer(o, "fold")));
}

Shape shapeOf(const llvm::json::Object &o) { return integers(o, "shape"); }

/// Compares a float32 draw with the reference's bit patterns; returns the
/// largest distance in ulps.
int64_t compareFloats(const interp::Tensor &t, const std::vector<int64_t> &bits) {
  REQUIRE(t.getNumElements() == static_cast<int64_t>(bits.size()));
  int64_t worst = 0;
  for (size_t i = 0; i < bits.size(); ++i) {
    float want = std::bit_cast<float>(static_cast<uint32_t>(bits[i]));
    worst = std::max(worst, ulpDistance(static_cast<float>(t.getDouble(i)), want));
  }
  return worst;
}

size_t count(llvm::StringRef op) {
  size_t n = 0;
  for (const llvm::json::Value &c : cases())
    n += *c.getAsObject()->getString("op") == op;
  return n;
}

} // namespace

TEST_CASE("the reference holds enough keys and shapes", "[random]") {
  for (const char *op : {"bits", "uniform", "normal", "truncated_normal", "bernoulli"})
    CHECK(count(op) >= 20);
  CHECK(count("split") >= 12);
  CHECK(count("fold_in") >= 12);
}

TEST_CASE("PRNGKey, split and fold_in are JAX's bit for bit", "[random]") {
  for (const llvm::json::Value &c : cases()) {
    const llvm::json::Object &o = *c.getAsObject();
    llvm::StringRef op = *o.getString("op");
    int64_t seed = integer(o, "seed");
    INFO(op.str() << " of PRNGKey(" << seed << ")");
    if (op == "PRNGKey") {
      CHECK(random::PRNGKey(seed) == keyOf(integers(o, "key")));
    } else if (op == "split") {
      std::vector<random::Key> keys =
          random::split(random::PRNGKey(seed), static_cast<size_t>(integer(o, "num")));
      const llvm::json::Array &want = *o.getArray("keys");
      REQUIRE(keys.size() == want.size());
      for (size_t i = 0; i < keys.size(); ++i) {
        const llvm::json::Array &w = *want[i].getAsArray();
        CHECK(keys[i] == random::Key{static_cast<uint32_t>(*w[0].getAsInteger()),
                                     static_cast<uint32_t>(*w[1].getAsInteger())});
      }
    } else if (op == "fold_in") {
      CHECK(random::fold_in(random::PRNGKey(seed), static_cast<uint32_t>(integer(o, "data"))) ==
            keyOf(integers(o, "key")));
    }
  }
}

TEST_CASE("bits, uniform and bernoulli are JAX's bit for bit", "[random]") {
  mlir::MLIRContext ctx;
  for (const llvm::json::Value &c : cases()) {
    const llvm::json::Object &o = *c.getAsObject();
    llvm::StringRef op = *o.getString("op");
    if (op != "bits" && op != "uniform" && op != "bernoulli")
      continue;
    INFO(op.str() << " seed " << integer(o, "seed") << " fold " << integer(o, "fold"));
    random::Key key = drawKey(o);
    Shape shape = shapeOf(o);
    if (op == "bits") {
      std::vector<int64_t> want = integers(o, "values");
      std::vector<uint32_t> got = random::bits(key, want.size());
      for (size_t i = 0; i < want.size(); ++i)
        CHECK(got[i] == static_cast<uint32_t>(want[i]));
    } else if (op == "uniform") {
      interp::Tensor u = random::uniform(ctx, key, shape, *o.getNumber("minval"),
                                         *o.getNumber("maxval"));
      CHECK(u.getShape() == llvm::ArrayRef<int64_t>(shape));
      CHECK(compareFloats(u, integers(o, "bits")) == 0);
    } else {
      interp::Tensor m = random::bernoulli(ctx, key, *o.getNumber("p"), shape);
      std::vector<int64_t> want = integers(o, "values");
      for (size_t i = 0; i < want.size(); ++i)
        CHECK(m.getInt(static_cast<int64_t>(i)) == want[i]);
    }
  }
}

TEST_CASE("normal and truncated_normal agree with JAX to a few ulps", "[random]") {
  mlir::MLIRContext ctx;
  int64_t worst = 0;
  size_t exact = 0, total = 0;
  for (const llvm::json::Value &c : cases()) {
    const llvm::json::Object &o = *c.getAsObject();
    llvm::StringRef op = *o.getString("op");
    if (op != "normal" && op != "truncated_normal")
      continue;
    INFO(op.str() << " seed " << integer(o, "seed") << " fold " << integer(o, "fold"));
    interp::Tensor t = op == "normal"
                           ? random::normal(ctx, drawKey(o), shapeOf(o))
                           : random::truncated_normal(ctx, drawKey(o), *o.getNumber("lower"),
                                                      *o.getNumber("upper"), shapeOf(o));
    std::vector<int64_t> bits = integers(o, "bits");
    int64_t distance = compareFloats(t, bits);
    CHECK(distance <= kNormalUlps);
    worst = std::max(worst, distance);
    for (size_t i = 0; i < bits.size(); ++i, ++total)
      exact += std::bit_cast<uint32_t>(static_cast<float>(t.getDouble(static_cast<int64_t>(i)))) ==
               static_cast<uint32_t>(bits[i]);
    if (op == "truncated_normal")
      for (int64_t i = 0; i < t.getNumElements(); ++i) {
        CHECK(t.getDouble(i) > *o.getNumber("lower"));
        CHECK(t.getDouble(i) < *o.getNumber("upper"));
      }
  }
  WARN("normal/truncated_normal: worst " << worst << " ulp, " << exact << " of " << total
                                          << " draws bit-exact");
  CHECK(exact * 100 >= total * 85); // most of them
}

TEST_CASE("bad random arguments are reported", "[random][errors]") {
  mlir::MLIRContext ctx;
  random::Key key = random::PRNGKey(0);
  CHECK_THROWS_WITH(random::bernoulli(ctx, key, 1.5, {3}),
                    Catch::Contains("p must lie in [0, 1], got 1.5"));
  CHECK_THROWS_WITH(random::truncated_normal(ctx, key, 2.0, -2.0, {3}),
                    Catch::Contains("lower (2.000000) must be below upper (-2.000000)"));
  CHECK_THROWS_WITH(random::normal(ctx, key, {2, -1}), Catch::Contains("negative dimension"));
}

TEST_CASE("inside a traced step, split, fold_in, bits, uniform and bernoulli are JAX's",
          "[random][traced]") {
  // The step takes PRNGKey(seed)'s key_data, folds the case's index in (as
  // the reference did) and draws; run by the interpreter and compiled.
  mlir::MLIRContext ctx;
  int64_t worstScaled = 0;
  size_t checked = 0;
  for (const llvm::json::Value &c : cases()) {
    const llvm::json::Object &o = *c.getAsObject();
    llvm::StringRef op = *o.getString("op");
    if (op != "bits" && op != "uniform" && op != "bernoulli" && op != "split" &&
        op != "fold_in")
      continue;
    INFO(op.str() << " seed " << integer(o, "seed"));
    interp::Tensor key = random::key_data(ctx, random::PRNGKey(integer(o, "seed")));
    auto draw = [&](Tensor k) -> Tensor {
      if (op == "split")
        return random::split(k, integer(o, "num"));
      if (op == "fold_in")
        return random::fold_in(k, integer(o, "data"));
      Tensor folded = random::fold_in(k, integer(o, "fold"));
      if (op == "bits")
        return random::bits(folded, shapeOf(o));
      if (op == "uniform")
        return random::uniform(folded, shapeOf(o), *o.getNumber("minval"), *o.getNumber("maxval"));
      return random::bernoulli(folded, *o.getNumber("p"), shapeOf(o));
    };
    for (bool compiled : {false, true}) {
      INFO((compiled ? "compiled" : "interpreted"));
      interp::Tensor got = compiled ? jit(draw)(key) : interpret(ctx, draw, key).at(0);
      std::vector<int64_t> want;
      if (op == "split") {
        for (const llvm::json::Value &k : *o.getArray("keys"))
          for (const llvm::json::Value &w : *k.getAsArray())
            want.push_back(*w.getAsInteger());
      } else if (op == "fold_in") {
        want = integers(o, "key");
      } else if (op == "uniform") {
        int64_t d = compareFloats(got, integers(o, "bits"));
        bool unit = *o.getNumber("minval") == 0.0 && *o.getNumber("maxval") == 1.0;
        CHECK(d <= (unit ? 0 : 1));
        if (!unit)
          worstScaled = std::max(worstScaled, d);
        continue;
      } else {
        want = integers(o, "values");
      }
      REQUIRE(got.getNumElements() == static_cast<int64_t>(want.size()));
      for (size_t i = 0; i < want.size(); ++i) // i32 bits against uint32 words
        CHECK(static_cast<uint32_t>(got.getInt(static_cast<int64_t>(i))) ==
              static_cast<uint32_t>(want[i]));
    }
    ++checked;
  }
  CHECK(checked >= 84);
  // Measured: the scaled draws of the reference are bit-exact too (the bound
  // above allows the 1 ulp a fused multiply-add could make).
  CHECK(worstScaled == 0);
}

TEST_CASE("traced draws reject keys that are not key data", "[random][traced][errors]") {
  mlir::MLIRContext ctx;
  interp::Tensor notKey = interp::Tensor::fromDoubles(
      mlir::RankedTensorType::get({2}, mlir::Float32Type::get(&ctx)), {0, 1});
  CHECK_THROWS_WITH(interpret(ctx, [](Tensor k) { return random::bits(k, {3}); }, notKey),
                    Catch::Contains("random.bits: expects a key of i32[2] (jax.random.key_data's "
                                    "bits), got f32[2]"));
  interp::Tensor key = random::key_data(ctx, random::PRNGKey(0));
  CHECK_THROWS_WITH(interpret(ctx, [](Tensor k) { return random::uniform(k, {2, -1}); }, key),
                    Catch::Contains("negative dimension"));
}
