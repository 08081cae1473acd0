//===- OpsControlFlow.cpp - scan, cond and while on host tensors ----------===//
//
// Implements the loop drivers of jx.scan and jx.while and the branch choice
// of jx.cond. Region bodies come in as callbacks (the interpreter evaluates
// the IR), so these functions know nothing of MLIR operations. Carries are
// moved into each iteration so a carry's buffer dies as soon as the body no
// longer needs it.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Kernels.h"
#include "runtime/interpreter/Ops.h"

#include <algorithm>
#include <cstring>

using namespace cotangent::interp;
using namespace cotangent::interp::detail;

Tensor cotangent::interp::indexLeading(const Tensor &x, int64_t i) {
  Tensor slice(withShape(x.getType(), x.getShape().drop_front()));
  int64_t bytes = slice.getByteSize();
  std::memcpy(slice.data(), x.data() + i * bytes, bytes);
  return slice;
}

void cotangent::interp::setLeading(Tensor &x, int64_t i, const Tensor &slice) {
  int64_t bytes = slice.getByteSize();
  std::memcpy(x.data() + i * bytes, slice.data(), bytes);
}

llvm::FailureOr<std::vector<Tensor>>
cotangent::interp::scanOp(llvm::ArrayRef<Tensor> consts, std::vector<Tensor> carry,
                          llvm::ArrayRef<Tensor> xs, int64_t length, bool reverse,
                          llvm::ArrayRef<mlir::RankedTensorType> ysTypes, Body body) {
  size_t numCarry = carry.size();
  std::vector<Tensor> ys;
  for (mlir::RankedTensorType type : ysTypes)
    ys.emplace_back(type);
  for (int64_t step = 0; step < length; ++step) {
    int64_t i = reverse ? length - 1 - step : step;
    std::vector<Tensor> args(consts.begin(), consts.end());
    std::move(carry.begin(), carry.end(), std::back_inserter(args));
    carry.clear();
    for (const Tensor &x : xs)
      args.push_back(indexLeading(x, i));
    llvm::FailureOr<std::vector<Tensor>> out = body(std::move(args));
    if (failed(out))
      return llvm::failure();
    std::move(out->begin(), out->begin() + numCarry, std::back_inserter(carry));
    for (size_t k = 0; k < ys.size(); ++k)
      setLeading(ys[k], i, (*out)[numCarry + k]);
  }
  std::move(ys.begin(), ys.end(), std::back_inserter(carry));
  return carry;
}

int64_t cotangent::interp::condBranchIndex(const Tensor &index, int64_t numBranches) {
  return std::clamp<int64_t>(index.getInt(0), 0, numBranches - 1);
}

llvm::FailureOr<std::vector<Tensor>> cotangent::interp::whileOp(std::vector<Tensor> carry,
                                                                Body cond, Body body) {
  while (true) {
    llvm::FailureOr<std::vector<Tensor>> go = cond(carry);
    if (failed(go))
      return llvm::failure();
    if (go->front().getInt(0) == 0)
      return carry;
    llvm::FailureOr<std::vector<Tensor>> next = body(std::move(carry));
    if (failed(next))
      return llvm::failure();
    carry = std::move(*next);
  }
}
