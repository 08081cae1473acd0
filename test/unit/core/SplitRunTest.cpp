//===- SplitRunTest.cpp - the split-run protocol on counted host blocks ---===//
//
// runtime/core's runSplit on a target whose "device" is host blocks it
// counts: what the run frees and when (outputs read or kept, residuals
// offloaded, blocks shared by several results), the bytes it reports, and
// that a failing half leaves nothing allocated.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/SplitReport.h"
#include "runtime/core/SplitRun.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>

using namespace cotangent::core;

namespace {

using Half = SplitTarget::Half;

/// Counted host blocks, and halves the test writes.
class CountingTarget final : public SplitTarget {
public:
  using Body = std::function<bool(std::vector<MemRefDescriptor> &args,
                                  std::vector<MemRefDescriptor> &results)>;
  Body forward, backward;
  bool reloadIntoFreshBlock = false;
  int discards = 0, offloads = 0;
  std::vector<int64_t> liveAtCalls; ///< live bytes as each half starts

  ~CountingTarget() override {
    for (auto &[block, bytes] : blocks)
      delete[] static_cast<char *>(block);
  }

  /// A counted block of `elements` f32s, row-major over `shape`.
  MemRefDescriptor alloc(std::vector<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    void *block = new char[std::max<int64_t>(n * 4, 1)]();
    blocks[block] = n * 4;
    live += n * 4;
    peak = std::max(peak, live);
    return MemRefDescriptor::contiguous(block, shape);
  }

  bool invoke(Half half, std::vector<MemRefDescriptor> &args,
              std::vector<MemRefDescriptor> &results, double &seconds) override {
    liveAtCalls.push_back(live);
    seconds += 1;
    return (half == Half::Forward ? forward : backward)(args, results);
  }
  int64_t liveBytes() const override { return live; }
  int64_t peakBytes() const override { return peak; }
  void resetPeak() override { peak = live; }
  int64_t blockBytes(void *block) const override {
    auto it = blocks.find(block);
    return it == blocks.end() ? -1 : it->second;
  }
  void release(void *block) override {
    auto it = blocks.find(block);
    REQUIRE(it != blocks.end()); // freed once, and only counted blocks
    live -= it->second;
    delete[] static_cast<char *>(block);
    blocks.erase(it);
  }
  bool offload(size_t result, const MemRefDescriptor &residual, MemRefDescriptor &copy) override {
    ++offloads;
    int64_t bytes = residual.numElements() * 4;
    char *pinned = new char[std::max<int64_t>(bytes, 1)];
    residual.copyElements(pinned, 4);
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < residual.rank(); ++d)
      shape.push_back(residual.size(d));
    copy = MemRefDescriptor::contiguous(pinned, shape);
    return true;
  }
  bool reload(size_t result, const MemRefDescriptor &copy, MemRefDescriptor &reloaded) override {
    if (!reloadIntoFreshBlock)
      return SplitTarget::reload(result, copy, reloaded);
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < copy.rank(); ++d)
      shape.push_back(copy.size(d));
    reloaded = alloc(shape);
    copy.copyElements(static_cast<char *>(reloaded.allocated()), 4);
    return true;
  }
  void discard(const MemRefDescriptor &copy) override {
    ++discards;
    delete[] static_cast<char *>(copy.allocated());
  }

  std::map<void *, int64_t> blocks;
  int64_t live = 0, peak = 0;
};

float *floats(const MemRefDescriptor &d) { return static_cast<float *>(d.aligned()) + d.offset(); }

/// x: f32[4] (the caller's, not counted), cotangent f32[]; forward
/// returns (y = 2x : [4], r = x + 1 : [4] its residual, x itself as a
/// residual); backward returns dx = 2 * seed from the residuals.
struct Doubler {
  CountingTarget target;
  float x[4] = {1, 2, 3, 4}, seed[4] = {1, 1, 1, 1};
  std::vector<MemRefDescriptor> args{MemRefDescriptor::contiguous(x, std::vector<int64_t>{4})};
  std::vector<MemRefDescriptor> cotangents{
      MemRefDescriptor::contiguous(seed, std::vector<int64_t>{4})};
  SplitLayout layout{1, {16, 16, 16}, {false, false, false}};

  Doubler() {
    target.forward = [this](std::vector<MemRefDescriptor> &in, std::vector<MemRefDescriptor> &out) {
      MemRefDescriptor y = target.alloc({4}), r = target.alloc({4});
      for (int i = 0; i < 4; ++i) {
        floats(y)[i] = 2 * floats(in[0])[i];
        floats(r)[i] = floats(in[0])[i] + 1;
      }
      out = {y, r, in[0]};
      return true;
    };
    target.backward = [this](std::vector<MemRefDescriptor> &in,
                             std::vector<MemRefDescriptor> &out) {
      // residual r, residual x, cotangent of y
      MemRefDescriptor dx = target.alloc({4});
      for (int i = 0; i < 4; ++i) {
        CHECK(floats(in[0])[i] == floats(in[1])[i] + 1); // the residuals came through
        floats(dx)[i] = 2 * floats(in[2])[i];
      }
      out = {dx};
      return true;
    };
  }
};

} // namespace

TEST_CASE("a split run reads the outputs after the forward and frees their blocks",
          "[core][split]") {
  Doubler d;
  std::vector<float> read;
  SplitRun run;
  REQUIRE(runSplit(d.target, d.layout, d.args, d.cotangents,
                   [&](const std::vector<MemRefDescriptor> &outputs) {
                     read.assign(floats(outputs[0]), floats(outputs[0]) + 4);
                     return true;
                   },
                   run));
  CHECK(read == std::vector<float>{2, 4, 6, 8});
  CHECK(run.numResiduals == 2);
  // r (16 counted bytes) and x (16, the caller's, held by reference).
  CHECK(run.residualBytes == 32);
  CHECK(run.argumentResidualBytes == 16);
  CHECK(run.offloadedBytes == 0);
  CHECK(run.keptOutputBytes == 0);
  // The backward started with r alone live (y freed); its peak adds dx.
  CHECK(d.target.liveAtCalls == std::vector<int64_t>{0, 16});
  CHECK(run.peakBytes == 32);
  CHECK(run.seconds == 2);
  REQUIRE(run.gradients.size() == 1);
  CHECK(floats(run.gradients[0])[3] == 2);
  // Only the gradient is left, and it is the caller's to free.
  REQUIRE(run.resultBlocks == std::vector<void *>{run.gradients[0].allocated()});
  CHECK(d.target.live == 16);
  d.target.release(run.resultBlocks[0]);
  CHECK(d.target.live == 0);
  CHECK(splitBytesReport(run) ==
        "residual bytes: 32 (16 of them arguments, held without a copy)\npeak bytes: 32\n");
}

TEST_CASE("a split run keeps the outputs to its end when nothing reads them", "[core][split]") {
  Doubler d;
  SplitRun run;
  REQUIRE(runSplit(d.target, d.layout, d.args, d.cotangents, nullptr, run));
  REQUIRE(run.outputs.size() == 1);
  CHECK(floats(run.outputs[0])[0] == 2);
  // The same residual bytes; the peak counts y to the end.
  CHECK(run.residualBytes == 32);
  CHECK(run.keptOutputBytes == 16);
  CHECK(run.peakBytes == 48);
  CHECK(run.resultBlocks.size() == 2);
  for (void *block : run.resultBlocks)
    d.target.release(block);
  CHECK(d.target.live == 0);
  CHECK(splitBytesReport(run).ends_with(
      "peak bytes: 48 (16 of them the outputs, held to the step's end)\n"));
}

TEST_CASE("an offloaded residual's block goes before the backward", "[core][split]") {
  for (bool fresh : {false, true}) {
    Doubler d;
    d.layout.offloaded = {false, true, false};
    d.target.reloadIntoFreshBlock = fresh;
    SplitRun run;
    REQUIRE(runSplit(d.target, d.layout, d.args, d.cotangents, nullptr, run));
    CHECK(d.target.offloads == 1);
    CHECK(d.target.discards == 1);
    CHECK(run.offloadedBytes == 16);
    // Held: x by reference; r waits outside.
    CHECK(run.residualBytes == 16);
    CHECK(run.argumentResidualBytes == 16);
    // The backward starts with y (kept) and, reloaded, r's fresh block.
    CHECK(d.target.liveAtCalls[1] == (fresh ? 32 : 16));
    for (void *block : run.resultBlocks)
      d.target.release(block);
    CHECK(d.target.live == 0);
  }
}

TEST_CASE("a block several results share is freed once, when nothing holds it",
          "[core][split]") {
  Doubler d;
  // y is a view of r's block: reading y must not free what r holds.
  d.target.forward = [&](std::vector<MemRefDescriptor> &in, std::vector<MemRefDescriptor> &out) {
    MemRefDescriptor r = d.target.alloc({4});
    for (int i = 0; i < 4; ++i)
      floats(r)[i] = floats(in[0])[i] + 1;
    out = {r, r, in[0]};
    return true;
  };
  // The gradient is r's block itself.
  d.target.backward = [&](std::vector<MemRefDescriptor> &in, std::vector<MemRefDescriptor> &out) {
    out = {in[0]};
    return true;
  };
  SplitRun run;
  REQUIRE(runSplit(d.target, d.layout, d.args, d.cotangents,
                   [](const std::vector<MemRefDescriptor> &) { return true; }, run));
  CHECK(run.residualBytes == 32);
  REQUIRE(run.resultBlocks.size() == 1);
  CHECK(d.target.live == 16);
  d.target.release(run.resultBlocks[0]);
}

TEST_CASE("a failing half, or reader, leaves nothing allocated", "[core][split]") {
  for (int failing : {0, 1, 2}) {
    Doubler d;
    d.layout.offloaded = {false, true, false};
    d.target.reloadIntoFreshBlock = true;
    auto forward = d.target.forward, backward = d.target.backward;
    if (failing == 0)
      d.target.forward = [&](auto &in, auto &out) { return forward(in, out) && false; };
    if (failing == 1)
      d.target.backward = [&](auto &in, auto &out) { return backward(in, out) && false; };
    SplitRun run;
    CHECK_FALSE(runSplit(d.target, d.layout, d.args, d.cotangents,
                         [&](const std::vector<MemRefDescriptor> &) { return failing != 2; },
                         run));
    CHECK(d.target.live == 0);
    CHECK(d.target.discards == d.target.offloads);
  }
}
