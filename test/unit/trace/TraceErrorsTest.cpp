// Every misuse of the tracing API throws TraceError naming the op, the
// shapes and this file's line; none reaches an MLIR assertion.
#include "TraceTestUtil.h"

using namespace cotangent;
using Catch::Matchers::Contains;

namespace {

/// The message of the TraceError `fn` throws (fails the test if none).
template <class F>
std::string errorOf(F &&fn) {
  try {
    fn();
  } catch (const TraceError &e) {
    return e.what();
  }
  FAIL("no TraceError thrown");
  return "";
}

std::string here(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

} // namespace

TEST_CASE("shape mismatch in a binary op names the shapes and the line", "[trace][errors]") {
  int line = 0;
  std::string msg = errorOf([&] {
    trace([&](Tensor a, Tensor b) { line = __LINE__; return a + b; }, f32({5}), f32({4}));
  });
  CHECK_THAT(msg, Contains("add: shapes cannot be broadcast together"));
  CHECK_THAT(msg, Contains("f32[5], f32[4]"));
  CHECK_THAT(msg, Contains(here(line)));
}

TEST_CASE("dot with mismatched contracting sizes", "[trace][errors]") {
  int line = 0;
  std::string msg = errorOf([&] {
    trace([&](Tensor W, Tensor x) { line = __LINE__; return np::dot(W, x); }, f32({5, 4}), f32({3}));
  });
  CHECK_THAT(msg, Contains("dot_general: contracting dimension sizes differ"));
  CHECK_THAT(msg, Contains("f32[5,4], f32[3]"));
  CHECK_THAT(msg, Contains(here(line)));
}

TEST_CASE("dtype errors: bool arithmetic, float logic, float switch index", "[trace][errors]") {
  int line = 0;
  std::string msg = errorOf([&] {
    trace([&](Tensor a) { line = __LINE__; return a - a; }, boolean({2}));
  });
  CHECK_THAT(msg, Contains("sub: does not accept bool operands"));
  CHECK_THAT(msg, Contains("bool[2]"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor a) { line = __LINE__; return a & a; }, f32({2}));
  });
  CHECK_THAT(msg, Contains("and: expects bool or integer operands"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor a) { line = __LINE__; return np::integer_pow(np::astype(a, DType::I32), -1); },
          f32({2}));
  });
  CHECK_THAT(msg, Contains("integer_pow: negative exponent -1 needs a float tensor"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace(
        [&](Tensor k, Tensor x) {
          std::vector<std::function<Tensor(Tensor)>> bs{[](Tensor v) { return v; }};
          line = __LINE__; return switch_(k, bs, x);
        },
        f32({}), f32({2}));
  });
  CHECK_THAT(msg, Contains("cond: the branch index must be an integer, got f32[]"));
  CHECK_THAT(msg, Contains(here(line)));
}

TEST_CASE("bad axes", "[trace][errors]") {
  int line = 0;
  std::string msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return np::sum(x, 2); }, f32({5, 4}));
  });
  CHECK_THAT(msg, Contains("reduce_sum: axis 2 is out of bounds for f32[5,4] of rank 2"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return np::squeeze(x, 0); }, f32({5, 4}));
  });
  CHECK_THAT(msg, Contains("squeeze: cannot squeeze axis 0 of size 5"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return np::transpose(x, {0, 0}); }, f32({5, 4}));
  });
  CHECK_THAT(msg, Contains("transpose: permutation dimension 0 is repeated"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return x[7]; }, f32({5, 4}));
  });
  CHECK_THAT(msg, Contains("slice: index 7 is out of bounds for axis 0 of size 5"));
  CHECK_THAT(msg, Contains(here(line)));
}

TEST_CASE("shape errors in shape functions", "[trace][errors]") {
  int line = 0;
  std::string msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return np::reshape(x, {3, -1}); }, f32({5, 4}));
  });
  CHECK_THAT(msg, Contains("reshape: cannot reshape f32[5,4] into shape [3, -1]"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return np::broadcast_to(x, {5, 3}); }, f32({5, 4}));
  });
  CHECK_THAT(msg, Contains("broadcast_in_dim: cannot broadcast f32[5,4] to f32[5,3]"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor a, Tensor b) { line = __LINE__; return np::concatenate({a, b}, 0); },
          f32({5, 4}), f32({2, 3}));
  });
  CHECK_THAT(msg, Contains("concatenate: input 1 differs in dimension 1"));
  CHECK_THAT(msg, Contains("f32[5,4], f32[2,3]"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor a, Tensor b) { line = __LINE__; return np::matmul(a, b); }, f32({2, 5, 4}),
          f32({3, 4, 6}));
  });
  CHECK_THAT(msg, Contains("dot_general: shapes cannot be broadcast together"));
  CHECK_THAT(msg, Contains(here(line)));
}

TEST_CASE("a tensor from a finished trace or from another trace", "[trace][errors]") {
  Tensor leaked;
  trace([&](Tensor x) { leaked = x; return x; }, f32({3}));
  int line = 0;
  std::string msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return x + leaked; }, f32({3}));
  });
  CHECK_THAT(msg, Contains("add: tensor f32[3] comes from another trace, which has finished"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace(
        [&](Tensor outer) {
          trace([&](Tensor inner) { line = __LINE__; return np::sin(outer); }, f32({2}));
          return outer;
        },
        f32({4}));
  });
  CHECK_THAT(msg, Contains("sin: tensor f32[4] comes from another trace (an enclosing one)"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] { line = __LINE__; (void)np::sin(leaked); });
  CHECK_THAT(msg, Contains("sin: called outside of a trace"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return np::sin(Tensor()); }, f32({3}));
  });
  CHECK_THAT(msg, Contains("default-constructed Tensor"));
}

TEST_CASE("a tensor escaping a checkpoint body", "[trace][errors]") {
  int line = 0;
  std::string msg = errorOf([&] {
    trace(
        [&](Tensor x) {
          Tensor inside;
          Tensor y = checkpoint([&](Tensor v) { inside = np::sin(v); return inside; })(x);
          line = __LINE__; return y + inside;
        },
        f32({3}));
  });
  CHECK_THAT(msg, Contains("add: a tensor escaped from a finished checkpoint, scan or cond body"));
  CHECK_THAT(msg, Contains(here(line)));
}

TEST_CASE("static arguments", "[trace][errors]") {
  auto scaled = [](Tensor x, double s) { return x * s; };
  // Used correctly: the double is static.
  trace ok([&](Tensor x) { return checkpoint(scaled, {.static_argnums = {1}})(x, 3.0); }, f32({2}));
  CHECK(ok.func().getNumResults() == 1);

  int line = 0;
  std::string msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return checkpoint(scaled)(x, 3.0); }, f32({2}));
  });
  CHECK_THAT(msg, Contains("remat: argument 1 is not a tree of Tensors; list it in static_argnums"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor x) {
      line = __LINE__; return checkpoint([](Tensor a, Tensor b) { return a + b; },
                                         {.static_argnums = {1}})(x, x);
    }, f32({2}));
  });
  CHECK_THAT(msg, Contains("remat: argument 1 is listed in static_argnums but holds Tensors"));
  CHECK_THAT(msg, Contains(here(line)));
}

TEST_CASE("control-flow type errors", "[trace][errors]") {
  int line = 0;
  std::string msg = errorOf([&] {
    trace([&](Tensor h, Tensor xs) {
      line = __LINE__; return scan([](Tensor c, Tensor x) { return std::pair{np::sum(c), x}; }, h, xs).first;
    }, f32({4}), f32({3, 4}));
  });
  CHECK_THAT(msg, Contains("scan: the body's carry output f32[] differs from its input f32[4]"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor h, Tensor a, Tensor b) {
      line = __LINE__; return scan([](Tensor c, std::pair<Tensor, Tensor> x) {
        return std::pair{c, x.first}; }, h, std::pair{a, b}).first;
    }, f32({4}), f32({3, 4}), f32({2, 4}));
  });
  CHECK_THAT(msg, Contains("scan: xs leading axis sizes differ"));
  CHECK_THAT(msg, Contains("f32[3,4], f32[2,4]"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor p, Tensor x) {
      line = __LINE__; return cond(p, [](Tensor v) { return v; }, [](Tensor v) { return np::sum(v); }, x);
    }, boolean({}), f32({5}));
  });
  CHECK_THAT(msg, Contains("cond: branches return different types: the false branch returns (f32[]), "
                           "the true branch returns (f32[5])"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor p, Tensor x) {
      line = __LINE__; return cond(p, [](Tensor v) { return v; }, [](Tensor v) { return v; }, x);
    }, boolean({2}), f32({5}));
  });
  CHECK_THAT(msg, Contains("cond: the predicate must be a 0-d tensor, got bool[2]"));
  CHECK_THAT(msg, Contains(here(line)));
}

TEST_CASE("invalid policies", "[trace][errors]") {
  int line = 0;
  std::string msg = errorOf([&] {
    auto p = policies::save_and_offload_only_these_names({"a"}, {"a"}, "device", "pinned_host");
    trace([&](Tensor x) { line = __LINE__; return checkpoint([](Tensor v) { return v; }, {.policy = p})(x); }, f32({2}));
  });
  CHECK_THAT(msg, Contains("remat: invalid policy"));
  CHECK_THAT(msg, Contains("'a' is both saveable and offloadable"));
  CHECK_THAT(msg, Contains(here(line)));

  msg = errorOf([&] {
    trace([&](Tensor x) { line = __LINE__; return checkpoint([](Tensor v) { return v; }, {.policy = policies::parse("no_such_policy")})(x); }, f32({2}));
  });
  CHECK_THAT(msg, Contains("remat: invalid policy no_such_policy"));
  CHECK_THAT(msg, Contains(here(line)));
}
