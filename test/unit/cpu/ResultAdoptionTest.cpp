// A result's block becomes the result tensor's (CpuModule::adopt): no copy,
// the hooks stop counting it, the block cache gets it back when the tensor
// goes; results that share a block, or are an argument's buffer, are copies.
#include "test/unit/cpu/Compare.h"

#include "runtime/cpu/MemoryHooks.h"

#include <algorithm>
#include <cstring>

using namespace cotangent;
using namespace cotangent::test;

namespace {

const char *kModule = R"mlir(
func.func @f(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %t = jx.tanh %x : tensor<64x64xf32>
  %e = jx.exp %x : tensor<64x64xf32>
  return %t, %e, %x : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
func.func @twice(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %t = jx.tanh %x : tensor<64x64xf32>
  return %t, %t : tensor<64x64xf32>, tensor<64x64xf32>
}
)mlir";

} // namespace

TEST_CASE("a call's results take over their blocks; the cache gets them back", "[cpu][memory][numerics]") {
  auto module = parse(kModule);
  auto compiled = cpu::CpuModule::compile(*module);
  REQUIRE(mlir::succeeded(compiled));
  auto fn = module->lookupSymbol<mlir::func::FuncOp>("f");
  std::vector<Tensor> args = randomArgs(fn, 1, false);
  auto want = boundedReference(fn, args);

  auto &counter = cpu::allocationCounter();
  int64_t live = counter.live();
  std::vector<const void *> firstBlocks;
  for (int round = 0; round < 2; ++round) {
    auto got = (*compiled)->call("f", args);
    REQUIRE(mlir::succeeded(got));
    // The caller's now: no longer among the blocks compiled code holds.
    CHECK(counter.live() == live);
    CHECK(got->stats.liveBytes == 2 * 64 * 64 * 4); // tanh and exp; %x is the argument
    for (size_t i = 0; i < want.size(); ++i)
      requireWithinBound(got->results[i], want[i]);
    // The argument returned as a result is a copy of it, not its buffer.
    CHECK(got->results[2].data() != args[0].data());
    // The second round's results get the blocks the first round's released.
    if (round == 0)
      firstBlocks = {got->results[0].data(), got->results[1].data()};
    else
      for (int i = 0; i < 2; ++i)
        CHECK(std::count(firstBlocks.begin(), firstBlocks.end(), got->results[i].data()) == 1);
    // Written through, an adopted result is the caller's alone.
    got->results[1].setDouble(0, 42.0);
    CHECK(got->results[1].getDouble(0) == 42.0);
  }
  CHECK(counter.live() == live);
}

TEST_CASE("a block two results share is adopted once and copied for the other", "[cpu][memory]") {
  auto module = parse(kModule);
  auto compiled = cpu::CpuModule::compile(*module);
  REQUIRE(mlir::succeeded(compiled));
  std::vector<Tensor> args =
      randomArgs(module->lookupSymbol<mlir::func::FuncOp>("twice"), 2, false);
  auto got = (*compiled)->call("twice", args);
  REQUIRE(mlir::succeeded(got));
  CHECK(got->results[0].data() != got->results[1].data());
  CHECK(std::memcmp(got->results[0].data(), got->results[1].data(), 64 * 64 * 4) == 0);
  // An adopted result passed back in is an argument like any other: the call
  // reads it in place and leaves it to the caller.
  std::vector<Tensor> again = {got->results[0]};
  auto second = (*compiled)->call("f", again);
  REQUIRE(mlir::succeeded(second));
  CHECK(std::memcmp(second->results[2].data(), got->results[1].data(), 64 * 64 * 4) == 0);
  CHECK(std::memcmp(got->results[0].data(), got->results[1].data(), 64 * 64 * 4) == 0);
}
