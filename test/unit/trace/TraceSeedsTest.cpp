// The seed examples (../shared/seeds) traced from C++: each test checks the
// emitted IR's ops, structure, names and locations.
#include "TraceTestUtil.h"

#include "dialects/jx/JxSplit.h"

using namespace cotangent;
using cotangent::test::allOpsLocated;
using cotangent::test::checkInOrder;
using cotangent::test::countOps;
using cotangent::test::rematDepth;

namespace {

Tensor g(Tensor W, Tensor x) { return np::sin(np::dot(W, x)); }

Tensor f(Tensor W1, Tensor W2, Tensor W3, Tensor x) {
  x = g(W1, x);
  x = g(W2, x);
  x = g(W3, x);
  return x;
}

Tensor f2(Tensor W1, Tensor W2, Tensor W3, Tensor x) {
  x = checkpoint(g)(W1, x);
  x = checkpoint(g)(W2, x);
  x = checkpoint(g)(W3, x);
  return x;
}

const TraceOptions fOptions{.name = "f", .arg_names = {"W1", "W2", "W3", "x"}};

std::string argName(mlir::func::FuncOp fn, unsigned i) {
  auto a = mlir::jx::getArgName(fn, i);
  return a ? a.getValue().str() : "";
}

} // namespace

TEST_CASE("g alone prints as the jaxpr JAX shows", "[trace][seed]") {
  trace t({.name = "g"}, g, f32({5, 4}), f32({4}));
  CHECK(t.jaxpr() == "{ lambda ; a:f32[5,4] b:f32[4]. let c:f32[5] = dot_general[dimension_numbers="
                     "(([1], [0]), ([], []))] a b; d:f32[5] = sin c in (d,) }\n");
  CHECK(checkInOrder(t.mlir(), {"func.func @g(%arg0: tensor<5x4xf32>", "jx.dot_general",
                                "contracting_dims = [1] x [0]", "jx.sin", "return"}));
}

TEST_CASE("three layers of sin(dot): W1[5,4], W2[6,5], W3[7,6], x[4]", "[trace][seed]") {
  trace t(fOptions, f, f32({5, 4}), f32({6, 5}), f32({7, 6}), f32({4}));
  mlir::func::FuncOp fn = t.func();
  CHECK(fn.getSymName() == "f");
  CHECK(countOps(t.module(), "jx.dot_general") == 3);
  CHECK(countOps(t.module(), "jx.sin") == 3);
  CHECK(countOps(t.module(), "jx.remat") == 0);
  REQUIRE(fn.getNumResults() == 1);
  CHECK(mlir::cast<mlir::RankedTensorType>(fn.getResultTypes()[0]).getShape() ==
        llvm::ArrayRef<int64_t>{7});
  CHECK(argName(fn, 0) == "W1");
  CHECK(argName(fn, 3) == "x");
  CHECK(checkInOrder(t.jaxpr(), {"{ lambda ; a:f32[5,4] b:f32[6,5] c:f32[7,6] d:f32[4]. let",
                                 "e:f32[5] = dot_general", "] a d", "f:f32[5] = sin e",
                                 "g:f32[6] = dot_general", "] b f", "h:f32[6] = sin g",
                                 "i:f32[7] = dot_general", "] c h", "j:f32[7] = sin i",
                                 "in (j,) }"}));
  CHECK(allOpsLocated(t, {"f", "g"}, __FILE__));
}

TEST_CASE("f2: each layer under jax.checkpoint becomes a jx.remat", "[trace][seed]") {
  trace t(fOptions, f2, f32({5, 4}), f32({6, 5}), f32({7, 6}), f32({4}));
  CHECK(countOps(t.module(), "jx.remat") == 3);
  CHECK(countOps(t.module(), "jx.sin") == 3);
  for (auto remat : t.func().getOps<mlir::jx::RematOp>()) {
    CHECK(remat.getNumOperands() == 2);
    CHECK(remat.getPolicy().getKind() == mlir::jx::PolicyKind::nothing_saveable);
    CHECK(remat.getPreventCse());
  }
  CHECK(checkInOrder(t.mlir(), {"jx.remat(%arg0, %arg3)", "policy = #jx.policy<nothing_saveable>",
                                "jx.dot_general", "jx.sin", "jx.yield"}));
  CHECK(checkInOrder(t.jaxpr(), {"e:f32[5] = checkpoint[", "jaxpr={ lambda ; f:f32[5,4] g:f32[4]. let",
                                 "policy=nothing_saveable", "prevent_cse=True", "] a d"}));
  CHECK(allOpsLocated(t, {"f", "f2", "g"}, __FILE__));
}

TEST_CASE("f4: checkpoint_name under save_only_these_names('a')", "[trace][seed]") {
  auto f4 = checkpoint(
      [](Tensor W1, Tensor W2, Tensor W3, Tensor x) {
        x = checkpoint_name(g(W1, x), "a");
        x = checkpoint_name(g(W2, x), "b");
        x = checkpoint_name(g(W3, x), "c");
        return x;
      },
      {.policy = policies::save_only_these_names({"a"})});
  trace t(fOptions, f4, f32({5, 4}), f32({6, 5}), f32({7, 6}), f32({4}));
  CHECK(countOps(t.module(), "jx.checkpoint_name") == 3);
  CHECK(checkInOrder(t.mlir(), {"jx.remat", "policy = #jx.policy<save_only_these_names(\"a\")>",
                                "jx.checkpoint_name", "\"a\"", "\"b\"", "\"c\""}));
  CHECK(checkInOrder(t.jaxpr(), {"name[name=a]", "name[name=b]", "name[name=c]"}));
}

TEST_CASE("loss/predict over a params list with checkpoint_name", "[trace][seed]") {
  auto layer = [](Tensor W, Tensor x) { return np::sin(np::dot(W, x)); };
  auto predict = [&](std::vector<Tensor> params, Tensor x) {
    Tensor Wlast = params.back();
    for (size_t i = 0; i + 1 < params.size(); ++i) {
      x = layer(params[i], x);
      x = checkpoint_name(x, "layer" + std::to_string(i) + "_output");
    }
    return np::dot(Wlast, x);
  };
  auto loss = [&](std::vector<Tensor> params, Tensor x, Tensor y) {
    return np::sum(np::power(predict(params, x) - y, 2));
  };
  auto lossCkpt = checkpoint(loss, {.policy = policies::save_any_names_but_these({"layer1_output"})});
  std::vector<Spec> params{f32({4, 4}), f32({4, 4}), f32({4, 4})};
  trace t({.name = "loss", .arg_names = {"params", "x", "y"}}, lossCkpt, params, f32({4}),
          f32({4}));
  mlir::func::FuncOp fn = t.func();
  CHECK(argName(fn, 0) == "params[0]");
  CHECK(argName(fn, 2) == "params[2]");
  CHECK(argName(fn, 4) == "y");
  CHECK(countOps(t.module(), "jx.checkpoint_name") == 2);
  CHECK(countOps(t.module(), "jx.integer_pow") == 1);
  CHECK(countOps(t.module(), "jx.reduce_sum") == 1);
  CHECK(checkInOrder(t.mlir(), {"\"layer0_output\"", "\"layer1_output\"", "jx.sub",
                                "jx.integer_pow", "y = 2", "jx.reduce_sum", "axes = [0]"}));
  CHECK(mlir::cast<mlir::RankedTensorType>(fn.getResultTypes()[0]).getRank() == 0);
  CHECK(allOpsLocated(t, {"loss"}, __FILE__));
}

TEST_CASE("the article's MLP block with relu over a params dict", "[trace][seed]") {
  using Params = std::map<std::string, Tensor>;
  auto block = [](Tensor x, Params params) {
    x = np::dot(x, params["w1"]) + params["b1"];
    x = np::relu(x);
    x = np::dot(x, params["w2"]) + params["b2"];
    return x;
  };
  auto checkpointed = checkpoint(block);
  auto model = [&](Tensor x, std::map<std::string, Params> all_params) {
    return checkpointed(x, all_params["block_params"]);
  };
  std::map<std::string, std::map<std::string, Spec>> specs{
      {"block_params",
       {{"w1", f32({128, 512})}, {"b1", f32({512})}, {"w2", f32({512, 128})}, {"b2", f32({128})}}}};
  trace t({.name = "model", .arg_names = {"x", "all_params"}}, model, f32({1, 128}), specs);
  mlir::func::FuncOp fn = t.func();
  REQUIRE(fn.getNumArguments() == 5);
  CHECK(argName(fn, 0) == "x");
  CHECK(argName(fn, 1) == "all_params['block_params']['b1']");
  CHECK(argName(fn, 3) == "all_params['block_params']['w1']");
  CHECK(countOps(t.module(), "jx.remat") == 1);
  auto remat = *fn.getOps<mlir::jx::RematOp>().begin();
  CHECK(remat.getNumOperands() == 5);
  CHECK(countOps(t.module(), "jx.dot_general") == 2);
  CHECK(countOps(t.module(), "jx.broadcast_in_dim") == 2); // b1, b2 to [1, n]
  CHECK(countOps(t.module(), "jx.max") == 1);
  CHECK(checkInOrder(t.jaxpr(), {"dot_general", "broadcast_in_dim[broadcast_dimensions=(1,) shape=(1, 512)]",
                                 "add", "max", "0.0:f32[1,512]", "dot_general", "add"}));
  CHECK(mlir::cast<mlir::RankedTensorType>(fn.getResultTypes()[0]).getShape() ==
        llvm::ArrayRef<int64_t>{1, 128});
  CHECK(allOpsLocated(t, {"model"}, __FILE__));
}

namespace {

using Fn = std::function<Tensor(Tensor)>;

// The seed's recursive_checkpoint, as written there.
Fn recursive_checkpoint(std::vector<Fn> funs) {
  if (funs.size() == 1)
    return funs[0];
  if (funs.size() == 2) {
    Fn f1 = funs[0], f2 = funs[1];
    return [=](Tensor x) { return f1(f2(x)); };
  }
  Fn f1 = recursive_checkpoint({funs.begin(), funs.begin() + funs.size() / 2});
  Fn f2 = recursive_checkpoint({funs.begin() + funs.size() / 2, funs.end()});
  return [=](Tensor x) { return f1(checkpoint(f2)(x)); };
}

} // namespace

TEST_CASE("recursive_checkpoint over a chain of sins nests remats log2(D) deep", "[trace][seed]") {
  Fn sin = [](Tensor x) { return np::sin(x); };
  for (int D : {8, 16}) {
    trace t({.name = "f"}, recursive_checkpoint(std::vector<Fn>(D, sin)), f32({}));
    CHECK(countOps(t.module(), "jx.sin") == D);
    // D/2 - 1 checkpoint calls; nesting depth log2(D) - 1 (the outermost
    // function itself is not checkpointed, as in the seed).
    CHECK(countOps(t.module(), "jx.remat") == D / 2 - 1);
    CHECK(rematDepth(t.func()) == (D == 8 ? 2 : 3));
    t.func().walk([](mlir::jx::RematOp r) { CHECK(r.getNumOperands() == 1); });
    CHECK(allOpsLocated(t, {"f", "f2", "g"}, __FILE__));
  }
}

TEST_CASE("scan over layers with a checkpointed body", "[trace][seed]") {
  auto layer = checkpoint(
      [](Tensor x, std::pair<Tensor, Tensor> W_b_pair) {
        auto [W, b] = W_b_pair;
        Tensor out = np::maximum(np::dot(x, W) + b, 0.0);
        return std::pair{out, None{}};
      },
      {.policy = policies::dots_with_no_batch_dims_saveable()});
  auto net = [&](Tensor all_weights, Tensor all_biases, Tensor x) {
    auto [out, ys] = scan(layer, x, std::pair{all_weights, all_biases});
    return out;
  };
  trace t({.name = "net", .arg_names = {"all_weights", "all_biases", "x"}}, net, f32({2, 2, 2}),
          f32({2, 2}), f32({2}));
  REQUIRE(countOps(t.module(), "jx.scan") == 1);
  auto scanOp = *t.func().getOps<mlir::jx::ScanOp>().begin();
  CHECK(scanOp.getLength() == 2);
  CHECK(scanOp.getNumConsts() == 0);
  CHECK(scanOp.getNumCarry() == 1);
  CHECK(scanOp.getNumResults() == 1);
  CHECK(countOps(t.module(), "jx.remat") == 1);
  CHECK(checkInOrder(t.mlir(), {"jx.scan", "length = 2, consts = 0, carry = 1", "jx.remat",
                                "policy = #jx.policy<dots_with_no_batch_dims_saveable>",
                                "jx.dot_general", "jx.add", "jx.max"}));
  CHECK(checkInOrder(t.jaxpr(), {"scan[", "jaxpr={ lambda ;", "checkpoint[",
                                 "policy=dots_with_no_batch_dims_saveable", "length=2",
                                 "num_carry=1", "num_consts=0"}));
  CHECK(allOpsLocated(t, {"net"}, __FILE__));
}

TEST_CASE("scan and checkpoint bodies capture outer tensors as operands", "[trace][seed]") {
  auto fn = [](Tensor W, Tensor h0, Tensor xs) {
    auto step = [&](Tensor h, Tensor x) { // W is captured: a const of the scan
      Tensor next = np::tanh(np::dot(W, h) + x);
      return std::pair{next, next};
    };
    auto [h, hs] = scan(checkpoint(step), h0, xs, {.reverse = true});
    Tensor scale = np::sum(W);
    Tensor y = checkpoint([&](Tensor v) { return v * scale; })(h); // captures scale
    return std::tuple{y, hs};
  };
  trace t({.name = "rnn"}, fn, f32({4, 4}), f32({4}), f32({3, 4}));
  auto scanOp = *t.func().getOps<mlir::jx::ScanOp>().begin();
  CHECK(scanOp.getNumConsts() == 1);
  CHECK(scanOp.getReverse());
  CHECK(scanOp.getNumResults() == 2);
  mlir::jx::RematOp inner = *scanOp.getBody().front().getOps<mlir::jx::RematOp>().begin();
  CHECK(inner.getNumOperands() == 3); // h, x, and the captured W
  mlir::jx::RematOp outer = *t.func().getOps<mlir::jx::RematOp>().begin();
  CHECK(outer.getNumOperands() == 2); // h and the captured scale
  CHECK(t.func().getNumResults() == 2);
  auto name = mlir::jx::getResultName(t.func(), 1);
  CHECK(name.getValue() == "result[1]");
  CHECK(allOpsLocated(t, {"rnn"}, __FILE__));
}

TEST_CASE("cond and switch emit jx.cond with branches in JAX's order", "[trace][seed]") {
  auto fn = [](Tensor p, Tensor x, Tensor k) {
    Tensor y = cond(p, [](Tensor v) { return np::sin(v); }, [](Tensor v) { return -v; }, x);
    std::vector<std::function<Tensor(Tensor)>> branches{
        [](Tensor v) { return v * 2.0; }, [&](Tensor v) { return v + y; } /* captures y */,
        [](Tensor v) { return np::exp(v); }};
    return switch_(k, branches, x);
  };
  trace t({.name = "branchy"}, fn, boolean({}), f32({5}), i32({}));
  REQUIRE(countOps(t.module(), "jx.cond") == 2);
  auto conds = t.func().getOps<mlir::jx::CondOp>();
  auto first = *conds.begin(), second = *std::next(conds.begin());
  REQUIRE(first.getBranches().size() == 2);
  // false first: the neg branch, then the sin branch.
  CHECK(mlir::isa<mlir::jx::NegOp>(first.getBranches()[0].front().front()));
  CHECK(mlir::isa<mlir::jx::SinOp>(first.getBranches()[1].front().front()));
  CHECK(second.getBranches().size() == 3);
  CHECK(second.getInputs().size() == 2); // x and the captured y
  for (mlir::Region &r : second.getBranches())
    CHECK(r.front().getNumArguments() == 2);
  CHECK(checkInOrder(t.jaxpr(), {"cond[", "branches=(", "{ lambda ;", "neg", "{ lambda ;", "sin"}));
  CHECK(allOpsLocated(t, {"branchy"}, __FILE__));
}
