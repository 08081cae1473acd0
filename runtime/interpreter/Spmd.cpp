//===- Spmd.cpp - a simulated group of ranks for collectives --------------===//
//
// Each rank is a thread running the interpreter. A collective is a round of
// a Group: each rank leaves its operand in its slot and waits; the last to
// arrive checks that every rank is at the same op and publishes the
// operands, from which each rank computes its own result (Ops.h's
// functions: a psum is addOp over the ranks in rank order, so every rank
// gets the same bits). A failed rank, or one that returns while others
// wait, stops the group: no rank waits forever.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Spmd.h"

#include "runtime/interpreter/Interpreter.h"
#include "runtime/interpreter/Ops.h"

#include "dialects/jx/JxOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/TypeSwitch.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

using namespace mlir;
using namespace cotangent::interp;

namespace {

class Group {
public:
  explicit Group(size_t ranks) : slots(ranks), at(ranks, nullptr) {}
  size_t size() const { return slots.size(); }

  /// Every rank's operand of `op`'s round, in rank order. Nullopt when the
  /// group stopped: `why` says why, or is empty when another rank stopped
  /// it and reported why.
  std::optional<std::vector<Tensor>> exchange(size_t rank, Operation &op, Tensor operand,
                                              std::string &why) {
    std::unique_lock<std::mutex> lock(mutex);
    if (stopped) {
      why.clear(); // the rank that stopped the group said why
      return std::nullopt;
    }
    const uint64_t round = rounds;
    slots[rank] = std::move(operand);
    at[rank] = &op;
    if (++arrived == size()) {
      for (size_t r = 1; r < size(); ++r)
        if (at[r] != at[0]) {
          why = "rank " + std::to_string(r) + " reached another collective than rank 0 (" +
                at[r]->getName().getStringRef().str() + " against " +
                at[0]->getName().getStringRef().str() + "): the ranks must run the same ones";
          stop();
          return std::nullopt;
        }
      published.clear();
      for (std::optional<Tensor> &slot : slots) {
        published.push_back(std::move(*slot));
        slot.reset();
      }
      arrived = 0;
      ++rounds;
      changed.notify_all();
      return published;
    }
    changed.wait(lock, [&] { return rounds != round || stopped || returned > 0; });
    if (rounds != round)
      return published; // the next round needs this rank: `published` is this one's
    why = stopped ? std::string()
                  : "a rank returned while this one waits in " +
                        op.getName().getStringRef().str() +
                        ": the ranks must reach the same collectives";
    return std::nullopt;
  }

  /// A rank failed (its error reported): the others stop at their next collective.
  void fail() {
    std::lock_guard<std::mutex> lock(mutex);
    stop();
  }
  /// A rank returned: a collective still waiting can never complete.
  void finish() {
    std::lock_guard<std::mutex> lock(mutex);
    ++returned;
    changed.notify_all();
  }

private:
  void stop() {
    stopped = true;
    changed.notify_all();
  }

  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::optional<Tensor>> slots;
  std::vector<Operation *> at;
  std::vector<Tensor> published;
  size_t arrived = 0, returned = 0;
  uint64_t rounds = 0;
  bool stopped = false;
};

/// The rank this thread runs, while runSpmd runs it.
struct Rank {
  Group *group = nullptr;
  size_t index = 0;
  StringRef axis;
};
thread_local Rank current;

/// Element `index` of dimension `dim` of `x`, or with `block`, the
/// `index`-th block of `block` elements along it.
Tensor sliceAlong(const Tensor &x, int64_t dim, int64_t index, int64_t block) {
  SmallVector<int64_t> start(x.getRank(), 0), limit(x.getShape()), strides(x.getRank(), 1);
  start[dim] = index * block;
  limit[dim] = (index + 1) * block;
  return sliceOp(x, start, limit, strides);
}

Tensor sumOf(ArrayRef<Tensor> all) {
  Tensor sum = all.front();
  for (const Tensor &t : all.drop_front())
    sum = addOp(sum, t);
  return sum;
}

/// An error every rank meets alike is reported once, by rank 0; the others
/// just fail.
bool reportsForAll() { return current.index == 0; }

/// all_gather's and psum_scatter's axis_size must be the group's.
LogicalResult checkAxisSize(Operation &op, int64_t axisSize, size_t ranks) {
  if (static_cast<size_t>(axisSize) == ranks)
    return success();
  if (!reportsForAll())
    return failure();
  return op.emitError() << "axis_size is " << axisSize << " but the group along '" << current.axis
                        << "' has " << ranks << " ranks";
}

} // namespace

FailureOr<std::vector<Tensor>> cotangent::interp::detail::evalCollective(
    Operation &op, ArrayRef<Tensor> operands) {
  auto axis = op.getAttrOfType<StringAttr>("axis_name");
  if (!current.group)
    return op.emitError() << "a collective over mesh axis '" << axis.getValue()
                          << "' needs a group of ranks: run the function with interp::runSpmd";
  if (axis.getValue() != current.axis && !reportsForAll())
    return failure();
  if (axis.getValue() != current.axis)
    return op.emitError() << "is over mesh axis '" << axis.getValue()
                          << "', but the ranks run along '" << current.axis << "'";
  const size_t rank = current.index, ranks = current.group->size();
  auto type = cast<RankedTensorType>(op.getResult(0).getType());
  if (isa<jx::AxisIndexOp>(op))
    return std::vector<Tensor>{Tensor::fromInts(type, {static_cast<int64_t>(rank)})};
  std::string why;
  std::optional<std::vector<Tensor>> all = current.group->exchange(rank, op, operands[0], why);
  if (!all) {
    if (why.empty())
      return failure(); // another rank failed, and said why
    return op.emitError() << why;
  }
  auto one = [](Tensor t) { return std::vector<Tensor>{std::move(t)}; };
  return llvm::TypeSwitch<Operation *, FailureOr<std::vector<Tensor>>>(&op)
      .Case([&](jx::PsumOp) { return one(sumOf(*all)); })
      .Case([&](jx::PmeanOp) {
        std::vector<double> n(type.getNumElements(), static_cast<double>(ranks));
        return one(divOp(sumOf(*all), Tensor::fromDoubles(type, n)));
      })
      .Case([&](jx::AllGatherOp o) -> FailureOr<std::vector<Tensor>> {
        if (failed(checkAxisSize(op, o.getAxisSize(), ranks)))
          return failure();
        int64_t dim = o.getDimension();
        if (o.getTiled())
          return one(concatenateOp(*all, dim));
        std::vector<Tensor> stacked;
        for (const Tensor &t : *all)
          stacked.push_back(expandDimsOp(t, {dim}));
        return one(concatenateOp(stacked, dim));
      })
      .Case([&](jx::PsumScatterOp o) -> FailureOr<std::vector<Tensor>> {
        if (failed(checkAxisSize(op, o.getAxisSize(), ranks)))
          return failure();
        int64_t dim = o.getDimension();
        Tensor sum = sumOf(*all);
        int64_t r = static_cast<int64_t>(rank);
        if (o.getTiled())
          return one(sliceAlong(sum, dim, r, sum.getShape()[dim] / o.getAxisSize()));
        return one(squeezeOp(sliceAlong(sum, dim, r, 1), {dim}));
      })
      .Case([&](jx::PpermuteOp o) -> FailureOr<std::vector<Tensor>> {
        ArrayRef<int64_t> perm = o.getPerm();
        std::optional<int64_t> source;
        for (size_t i = 0; i < perm.size(); i += 2) {
          if (static_cast<size_t>(std::max(perm[i], perm[i + 1])) >= ranks) {
            if (!reportsForAll())
              return failure();
            return op.emitError() << "perm names rank " << std::max(perm[i], perm[i + 1])
                                  << " of a group of " << ranks << " ranks";
          }
          if (static_cast<size_t>(perm[i + 1]) == rank)
            source = perm[i];
        }
        return one(source ? (*all)[*source] : Tensor(type));
      })
      .Default([&](Operation *) { return op.emitError("is not a collective"); });
}

FailureOr<std::vector<std::vector<Tensor>>>
cotangent::interp::runSpmd(func::FuncOp fn, StringRef axis, ArrayRef<std::vector<Tensor>> args) {
  if (args.empty())
    return emitError(fn.getLoc()) << "runSpmd needs at least one rank";
  Group group(args.size());
  std::vector<FailureOr<std::vector<Tensor>>> results(args.size(), failure());
  {
    std::vector<std::thread> ranks;
    for (size_t r = 0; r < args.size(); ++r)
      ranks.emplace_back([&, r] {
        current = {&group, r, axis};
        results[r] = run(fn, args[r]);
        current = {};
        if (failed(results[r]))
          group.fail();
        else
          group.finish();
      });
    for (std::thread &t : ranks)
      t.join();
  }
  std::vector<std::vector<Tensor>> out;
  for (FailureOr<std::vector<Tensor>> &r : results) {
    if (failed(r))
      return failure();
    out.push_back(std::move(*r));
  }
  return out;
}
