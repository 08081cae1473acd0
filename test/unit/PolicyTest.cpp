// The remat policy attribute from C++: parsing by JAX's names, aliases,
// errors, and what each policy decides for dots and named values.
#include "dialects/jx/JxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mlir::jx;
using Decision = PolicyAttr::Decision;

namespace {

struct Fixture {
  MLIRContext ctx;
  OpBuilder b{&ctx};
  Location loc = UnknownLoc::get(&ctx);
  ModuleOp module;
  Operation *dot = nullptr, *batchDot = nullptr, *sin = nullptr;
  Operation *nameA = nullptr, *nameB = nullptr;

  Fixture() {
    ctx.loadDialect<JxDialect, func::FuncDialect>();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module.getBody());
    auto f32 = b.getF32Type();
    auto w = ConstantOp::create(b, loc, DenseElementsAttr::get(RankedTensorType::get({5, 4}, f32), 1.0f));
    auto x = ConstantOp::create(b, loc, DenseElementsAttr::get(RankedTensorType::get({4}, f32), 1.0f));
    auto bw = ConstantOp::create(b, loc, DenseElementsAttr::get(RankedTensorType::get({2, 5, 4}, f32), 1.0f));
    auto bx = ConstantOp::create(b, loc, DenseElementsAttr::get(RankedTensorType::get({2, 4}, f32), 1.0f));
    dot = DotGeneralOp::create(b, loc, w, x, b.getDenseI64ArrayAttr({1}), b.getDenseI64ArrayAttr({0}),
                               b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}), nullptr);
    batchDot = DotGeneralOp::create(b, loc, bw, bx, b.getDenseI64ArrayAttr({2}),
                                    b.getDenseI64ArrayAttr({1}), b.getDenseI64ArrayAttr({0}),
                                    b.getDenseI64ArrayAttr({0}), nullptr);
    sin = SinOp::create(b, loc, dot->getResult(0));
    nameA = CheckpointNameOp::create(b, loc, sin->getResult(0), "a");
    nameB = CheckpointNameOp::create(b, loc, sin->getResult(0), "b");
  }
  ~Fixture() { module->erase(); }

  PolicyAttr parse(StringRef text) {
    std::string error;
    PolicyAttr p = PolicyAttr::parsePolicy(&ctx, text, error);
    INFO(error);
    REQUIRE(p);
    return p;
  }
};

} // namespace

TEST_CASE_METHOD(Fixture, "policies parse by JAX's names and print canonically", "[policy]") {
  CHECK(stringifyPolicyKind(parse("checkpoint_dots").getKind()) == "dots_saveable");
  CHECK(parse("checkpoint_dots_with_no_batch_dims").getKind() ==
        PolicyKind::dots_with_no_batch_dims_saveable);
  CHECK(parse("save_anything_but_these_names(\"a\")").getKind() ==
        PolicyKind::save_anything_except_these_names);
  auto both = parse("save_from_both_policies(dots_saveable, save_only_these_names(\"a\", \"b\"))");
  REQUIRE(both.getOperands().size() == 2);
  CHECK(both.getOperands()[1].getNames().size() == 2);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  os << Attribute(both);
  CHECK(printed ==
        "#jx.policy<save_from_both_policies(dots_saveable, save_only_these_names(\"a\", \"b\"))>");
}

TEST_CASE_METHOD(Fixture, "bad policies are errors that say why", "[policy]") {
  std::string error;
  CHECK_FALSE(PolicyAttr::parsePolicy(&ctx, "dots_savable", error));
  CHECK_THAT(error, Catch::Contains("unknown remat policy 'dots_savable'") &&
                        Catch::Contains("save_from_both_policies"));
  error.clear();
  CHECK_FALSE(PolicyAttr::parsePolicy(
      &ctx, "save_and_offload_only_these_names([\"a\"], [\"a\"], \"device\", \"pinned_host\")",
      error));
  CHECK_THAT(error, Catch::Contains("disjoint"));
  error.clear();
  CHECK_FALSE(PolicyAttr::parsePolicy(&ctx, "save_from_both_policies(dots_saveable)", error));
  CHECK_THAT(error, Catch::Contains("exactly 2 policies"));
}

TEST_CASE_METHOD(Fixture, "each policy decides as in JAX", "[policy]") {
  CHECK(parse("everything_saveable").decide(sin) == Decision::Save);
  CHECK(parse("nothing_saveable").decide(dot) == Decision::Recompute);
  CHECK(parse("dots_saveable").decide(dot) == Decision::Save);
  CHECK(parse("dots_saveable").decide(batchDot) == Decision::Save);
  CHECK(parse("dots_saveable").decide(sin) == Decision::Recompute);
  CHECK(parse("dots_with_no_batch_dims_saveable").decide(dot) == Decision::Save);
  CHECK(parse("dots_with_no_batch_dims_saveable").decide(batchDot) == Decision::Recompute);
  CHECK(parse("save_only_these_names(\"a\")").decide(nameA) == Decision::Save);
  CHECK(parse("save_only_these_names(\"a\")").decide(nameB) == Decision::Recompute);
  CHECK(parse("save_only_these_names(\"a\")").decide(dot) == Decision::Recompute);
  CHECK(parse("save_any_names_but_these(\"a\")").decide(nameB) == Decision::Save);
  CHECK(parse("save_any_names_but_these(\"a\")").decide(nameA) == Decision::Recompute);
  CHECK(parse("save_any_names_but_these(\"a\")").decide(sin) == Decision::Recompute);
  CHECK(parse("save_anything_except_these_names(\"a\")").decide(sin) == Decision::Save);
  CHECK(parse("save_anything_except_these_names(\"a\")").decide(nameA) == Decision::Recompute);
  auto offload = parse(
      "save_and_offload_only_these_names([\"a\"], [\"b\"], \"device\", \"pinned_host\")");
  CHECK(offload.decide(nameA) == Decision::Save);
  CHECK(offload.decide(nameB) == Decision::Offload);
  CHECK(offload.decide(dot) == Decision::Recompute);
  auto offloadDots = parse("offload_dot_with_no_batch_dims(\"device\", \"pinned_host\")");
  CHECK(offloadDots.decide(dot) == Decision::Offload);
  CHECK(offloadDots.decide(batchDot) == Decision::Recompute);
}

TEST_CASE_METHOD(Fixture, "save_from_both_policies composes offload policies too", "[policy]") {
  auto offloadDots = PolicyAttr::getOffloading(&ctx, PolicyKind::offload_dot_with_no_batch_dims,
                                               "device", "pinned_host");
  auto namesA = PolicyAttr::getNamed(&ctx, PolicyKind::save_only_these_names, {"a"});
  auto both = PolicyAttr::getComposed(PolicyKind::save_from_both_policies, offloadDots, namesA);
  CHECK(both.decide(dot) == Decision::Offload);
  CHECK(both.decide(nameA) == Decision::Save);
  CHECK(both.decide(nameB) == Decision::Recompute);
  // Save wins over offload when both apply.
  auto saveDots = PolicyAttr::get(&ctx, PolicyKind::dots_saveable);
  CHECK(PolicyAttr::getComposed(PolicyKind::save_from_both_policies, offloadDots, saveDots)
            .decide(dot) == Decision::Save);
}

TEST_CASE_METHOD(Fixture, "every spelling of Policies.def parses and prints by its signature",
                 "[policy]") {
  // One example call per signature; the printer writes the primary name.
  auto arguments = [](PolicySignature signature) -> std::string {
    switch (signature) {
    case PolicySignature::Plain:
      return "";
    case PolicySignature::Names:
      return "(\"a\", \"b\")";
    case PolicySignature::SaveOffload:
      return "([\"a\"], [\"b\"], \"device\", \"pinned_host\")";
    case PolicySignature::MemoryKinds:
      return "(\"device\", \"pinned_host\")";
    case PolicySignature::Policies:
      return "(dots_saveable, nothing_saveable)";
    case PolicySignature::Budget:
      return "(1048576)";
    }
    return "";
  };
  for (const PolicySpelling &spelling : kPolicySpellings) {
    INFO(spelling.name.str());
    std::string args = arguments(spelling.signature);
    PolicyAttr policy = parse((spelling.name + args).str());
    CHECK(policy.getKind() == spelling.kind);
    CHECK(symbolizePolicyKind(spelling.name) == spelling.kind);
    std::string printed;
    llvm::raw_string_ostream os(printed);
    os << Attribute(policy);
    CHECK(printed == "#jx.policy<" + stringifyPolicyKind(spelling.kind).str() + args + ">");
    // A policy with arguments needs them; one without takes none.
    std::string wrong = spelling.signature == PolicySignature::Plain ? "(\"a\")" : "";
    std::string error;
    CHECK_FALSE(PolicyAttr::parsePolicy(&ctx, (spelling.name + wrong).str(), error));
    CHECK_FALSE(error.empty());
  }
}
