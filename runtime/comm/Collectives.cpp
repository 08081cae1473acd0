//===- Collectives.cpp - compiled collectives on the job's group ----------===//
//
// all_gather and psum_scatter along a dimension other than the first move
// blocks through a rank-major buffer, since MPI's (and NCCL's) gathers and
// reduce-scatters are rank-major; pmean of bf16/f16 sums and divides in f32
// and rounds once.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/Collectives.h"
#include "runtime/comm/Communicator.h"
#include "runtime/host/HalfFloat.h"

#include <cstring>
#include <vector>

using namespace cotangent;
using comm::CollectiveKind;
using comm::ElementKind;

namespace {

/// `count` elements of kind `k` divided by `n`, in place.
void divide(void *data, int64_t count, ElementKind k, int n) {
  if (k == ElementKind::F64) {
    auto *d = static_cast<double *>(data);
    for (int64_t i = 0; i < count; ++i)
      d[i] /= n;
  } else {
    auto *f = static_cast<float *>(data);
    for (int64_t i = 0; i < count; ++i)
      f[i] /= static_cast<float>(n);
  }
}

void pmean(comm::Communicator &group, const void *in, void *out, int64_t count, ElementKind k) {
  if (k != ElementKind::BF16 && k != ElementKind::F16) {
    group.allReduceSum(in, out, count, k);
    return divide(out, count, k, group.size());
  }
  const auto *bits = static_cast<const uint16_t *>(in);
  std::vector<float> wide(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    wide[i] = k == ElementKind::BF16 ? host::bf16ToFloat(bits[i]) : host::f16ToFloat(bits[i]);
  group.allReduceSum(wide.data(), wide.data(), count, ElementKind::F32);
  divide(wide.data(), count, ElementKind::F32, group.size());
  auto *result = static_cast<uint16_t *>(out);
  for (int64_t i = 0; i < count; ++i)
    result[i] = k == ElementKind::BF16 ? host::floatToBf16(wide[i]) : host::floatToF16(wide[i]);
}

/// [a][b][block] -> [b][a][block] (`block` in bytes).
void swapOuter(const char *from, char *to, int64_t a, int64_t b, int64_t block) {
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      std::memcpy(to + (j * a + i) * block, from + (i * b + j) * block, static_cast<size_t>(block));
}

} // namespace

extern "C" void cotangent_collective(int64_t kind, int64_t element, int64_t elementBytes,
                                     intptr_t in, intptr_t out, int64_t outer, int64_t inner,
                                     intptr_t perm, int64_t pairs) {
  comm::Communicator &group = comm::world();
  const auto k = static_cast<ElementKind>(element);
  const auto *src = reinterpret_cast<const char *>(in);
  auto *dst = reinterpret_cast<char *>(out);
  const int64_t ranks = group.size(), count = outer * inner;
  switch (static_cast<CollectiveKind>(kind)) {
  case CollectiveKind::Psum:
    return group.allReduceSum(src, dst, count, k);
  case CollectiveKind::Pmean:
    return pmean(group, src, dst, count, k);
  case CollectiveKind::AllGather: {
    if (outer == 1)
      return group.allGather(src, dst, inner * elementBytes);
    std::vector<char> rankMajor(static_cast<size_t>(ranks * count * elementBytes));
    group.allGather(src, rankMajor.data(), count * elementBytes);
    return swapOuter(rankMajor.data(), dst, ranks, outer, inner * elementBytes);
  }
  case CollectiveKind::PsumScatter: {
    if (outer == 1)
      return group.reduceScatterSum(src, dst, inner, k);
    std::vector<char> rankMajor(static_cast<size_t>(ranks * count * elementBytes));
    swapOuter(src, rankMajor.data(), outer, ranks, inner * elementBytes);
    return group.reduceScatterSum(rankMajor.data(), dst, count, k);
  }
  case CollectiveKind::Ppermute: {
    const auto *pairList = reinterpret_cast<const int64_t *>(perm);
    int dest = -1, source = -1;
    for (int64_t i = 0; i < pairs; ++i) {
      if (pairList[2 * i] == group.rank())
        dest = static_cast<int>(pairList[2 * i + 1]);
      if (pairList[2 * i + 1] == group.rank())
        source = static_cast<int>(pairList[2 * i]);
    }
    if (source < 0) // no rank sends here: zeros, as jax.lax.ppermute gives
      std::memset(dst, 0, static_cast<size_t>(count * elementBytes));
    return group.sendRecv(src, dest, dst, source, count * elementBytes);
  }
  case CollectiveKind::AxisIndex: {
    const int32_t rank = group.rank();
    std::memcpy(dst, &rank, sizeof rank);
    return;
  }
  }
}
