//===- ManifestTest.cpp - a step's manifest, written and read back --------===//
//
// runtime/core's manifest is the one schema of a compiled step's
// signatures: what writeManifest writes (stepManifest's output for an
// object) parseManifest reads back unchanged, and malformed text is refused
// with the line it is on.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Manifest.h"

#include <catch2/catch.hpp>

using namespace cotangent::core;

namespace {

Manifest mlpManifest() {
  Manifest m;
  m.target = "cuda sm_80,sm_90";
  Function fwd{"mlp_fwd", "_cotangent_packed_mlp_fwd",
               {{DType::BF16, {8, 16}}, {DType::F32, {}}},
               {{DType::F32, {8, 4}}, {DType::F32, {8, 32}}, {DType::I1, {3}}},
               {false, true, false}};
  Function bwd{"mlp_bwd", "_cotangent_packed_mlp_bwd",
               {{DType::F32, {8, 32}}, {DType::I1, {3}}, {DType::F32, {8, 4}}},
               {{DType::BF16, {8, 16}}, {DType::F32, {}}},
               {false, false}};
  m.functions = {{fwd.name, fwd}, {bwd.name, bwd}};
  m.splits = {{"mlp", "mlp_fwd", "mlp_bwd", 1, 5248, 4096}, {"other", "mlp_fwd", "mlp_bwd", 1}};
  return m;
}

bool sameType(const TensorType &a, const TensorType &b) {
  return a.dtype == b.dtype && a.shape == b.shape;
}

} // namespace

TEST_CASE("a manifest reads back as it was written", "[core][manifest]") {
  Manifest written = mlpManifest();
  std::string text = writeManifest(written);
  CHECK(text.starts_with("cotangent-manifest 1\ntarget cuda sm_80,sm_90\n"));
  CHECK(text.find("  result f32 [8,32] pinned_host\n") != std::string::npos);
  CHECK(text.find("plan mlp 5248 4096\n") != std::string::npos);
  CHECK(text.find("plan other") == std::string::npos); // no prediction, no line

  Manifest read;
  std::string error;
  REQUIRE(parseManifest(text, read, error));
  CHECK(read.target == written.target);
  REQUIRE(read.functions.size() == 2);
  for (const auto &[name, fn] : written.functions) {
    const Function &back = read.functions.at(name);
    CHECK(back.entry == fn.entry);
    REQUIRE(back.args.size() == fn.args.size());
    REQUIRE(back.results.size() == fn.results.size());
    for (size_t i = 0; i < fn.args.size(); ++i)
      CHECK(sameType(back.args[i], fn.args[i]));
    for (size_t i = 0; i < fn.results.size(); ++i)
      CHECK(sameType(back.results[i], fn.results[i]));
    CHECK(back.pinnedHost == fn.pinnedHost);
  }
  REQUIRE(read.splits.size() == 2);
  CHECK(read.splits[0].predictedPeakBytes == 5248);
  CHECK(read.splits[0].predictedResidualBytes == 4096);
  CHECK(read.splits[1].predictedPeakBytes == -1);
  CHECK(writeManifest(read) == text);
  CHECK(read.functions.at("mlp_fwd").args[0].bytes() == 8 * 16 * 2);
  CHECK(read.functions.at("mlp_fwd").args[0].str() == "bf16[8,16]");
}

TEST_CASE("a malformed manifest is refused with its line", "[core][manifest]") {
  std::string text = writeManifest(mlpManifest());
  auto refused = [](const std::string &bad) {
    Manifest m;
    std::string error;
    CHECK_FALSE(parseManifest(bad, m, error));
    return error;
  };
  CHECK(refused("") == "empty manifest");
  CHECK(refused("cotangent-manifest 2\n").find("line 1: not a cotangent-manifest 1") !=
        std::string::npos);
  std::string badType = text;
  badType.replace(badType.find("arg bf16 [8,16]"), 15, "arg q8 [8,16]");
  CHECK(refused(badType).find("line 10: expected 'arg DTYPE [DIMS]'") != std::string::npos);
  CHECK(refused(text + "plan nothing 1 2\n").find("which no split before it names") !=
        std::string::npos);
  // A backward whose arguments are not one per forward result.
  std::string mismatched = text;
  mismatched.replace(mismatched.find("  arg i1 [3]\n"), 13, "");
  CHECK(refused(mismatched).find("does not match its functions") != std::string::npos);
}
