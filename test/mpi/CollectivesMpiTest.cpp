// Compiled collectives on the job's group (comm::world(): MPI's world under
// `mpirun -np N`, one process alone) against the reference interpreter's
// simulated group of as many ranks (interp::runSpmd), which defines them:
// every collective, along the first dimension and an inner one, in f64,
// f32 and bf16, bit for bit (the operands are small integers, so every sum
// is exact whatever order the ranks add in); and a program whose axis size
// is not the group's is refused before it runs.
#include "runtime/comm/Communicator.h"
#include "runtime/interpreter/Spmd.h"
#include "tracer/Collectives.h"
#include "tracer/Array.h"
#include "tracer/Jit.h"
#include "tracer/Numpy.h"

#include <catch2/catch.hpp>

using namespace cotangent;

namespace {

/// Rank r's operand of shape `shape`: small integers, different per rank.
interp::Tensor operand(mlir::RankedTensorType type, int rank) {
  std::vector<double> v(type.getNumElements());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>((rank * 7 + static_cast<int>(i) * 3) % 11 - 5);
  return interp::Tensor::fromDoubles(type, v);
}

} // namespace

TEST_CASE("compiled collectives equal the interpreter's on the job's group", "[mpi]") {
  comm::Communicator &group = comm::world();
  const int n = group.size(), rank = group.rank();
  INFO(group.name() << ", rank " << rank << " of " << n);
  auto each = [n](const Tensor &x, const Tensor &y) {
    std::vector<std::pair<int64_t, int64_t>> ring;
    for (int r = 0; r < n; ++r)
      ring.push_back({r, (r + 1) % n});
    return std::tuple{lax::psum(x, "r"),
                      lax::pmean(x, "r"),
                      lax::all_gather(x, "r", n, 0),
                      lax::all_gather(y, "r", n, 1),           // [2][rank][3]: rearranged
                      lax::all_gather(y, "r", n, 1, true),     // [2][3 n]
                      lax::psum_scatter(x, "r", n, 0),         // x is [n, 3]
                      lax::psum_scatter(x, "r", n, 0, true),
                      lax::psum_scatter(lax::all_gather(y, "r", n, 1, true), "r", n, 1, true),
                      lax::ppermute(x, "r", ring),
                      lax::axis_index("r")};
  };
  for (DType dtype : {DType::F64, DType::F32, DType::BF16}) {
    INFO("dtype " << static_cast<int>(dtype));
    Spec xs{{n, 3}, dtype}, ys{{2, 3}, dtype};
    trace traced(TraceOptions{.name = "each"}, each, xs, ys);
    auto types = traced.func().getArgumentTypes();
    std::vector<std::vector<interp::Tensor>> ranks;
    for (int r = 0; r < n; ++r)
      ranks.push_back({operand(mlir::cast<mlir::RankedTensorType>(types[0]), r),
                       operand(mlir::cast<mlir::RankedTensorType>(types[1]), r)});
    auto expected = interp::runSpmd(traced.func(), "r", ranks);
    REQUIRE(mlir::succeeded(expected));
    auto got = jit(each)(ranks[rank][0], ranks[rank][1]);
    std::vector<interp::Tensor> results;
    std::apply([&](const auto &...t) { (results.push_back(t), ...); }, got);
    REQUIRE(results.size() == (*expected)[rank].size());
    for (size_t i = 0; i < results.size(); ++i) {
      INFO("result " << i);
      const interp::Tensor &want = (*expected)[rank][i];
      REQUIRE(results[i].getType() == want.getType());
      for (int64_t e = 0; e < want.getNumElements(); ++e)
        CHECK(results[i].getDouble(e) == want.getDouble(e));
    }
  }
}

TEST_CASE("a program for another group size is refused before it runs", "[mpi]") {
  const int n = comm::world().size();
  auto gather = [n](const Tensor &x) { return lax::all_gather(x, "r", n + 1); };
  try {
    jit(gather)(interp::Tensor::fromDoubles(
        mlir::RankedTensorType::get({2}, mlir::Float32Type::get(&defaultContext())), {1, 2}));
    FAIL("an all_gather over " << n + 1 << " ranks ran on " << n);
  } catch (const TraceError &e) {
    CHECK_THAT(e.what(), Catch::Contains("axis_size is " + std::to_string(n + 1) +
                                         " but the group has " + std::to_string(n) + " rank"));
  }
}
