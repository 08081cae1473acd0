//===- Module.cpp - remat_scan's parameter stacking -----------------------===//

#include "tracer/Module.h"

#include <cstring>

namespace cotangent::nn::detail {

interp::Tensor stackLeaves(const std::vector<interp::Tensor> &leaves,
                           const std::vector<int64_t> &lengths, const std::string &path) {
  const interp::Tensor &first = leaves.front();
  std::vector<int64_t> shape(lengths);
  shape.insert(shape.end(), first.getShape().begin(), first.getShape().end());
  interp::Tensor out(first.getType().clone(shape));
  int64_t bytes = first.getByteSize();
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (leaves[i].getType() != first.getType())
      throwTraceError("remat_scan",
                      "iteration " + std::to_string(i) + " initialized params" + path +
                          " with another shape or dtype than iteration 0",
                      {}, SrcLoc::current());
    std::memcpy(out.data() + i * bytes, leaves[i].data(), static_cast<size_t>(bytes));
  }
  return out;
}

} // namespace cotangent::nn::detail
