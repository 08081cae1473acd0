//===- data_parallel.cpp - one training step, every process of a job ------===//
//
// Data parallelism as JAX writes it in a shard_map body: every process runs
// the same jitted step on its own rows of the batch, and lax::pmean
// averages the gradients over the processes (compiled, each gradient goes to
// a communication thread as the backward makes it: docs/distributed.md).
// optim::zero1 is ZeRO-1: AdamW's state split between the processes, each
// updating its block. Alone, the job is one process; under
//
//   mpirun -np 2 build/examples/data_parallel
//
// two processes each take half of every batch and print (rank 0) the same
// losses, within rounding, as one process on the whole batch. The step's
// results go back into the trees it was given (call_into): the loop
// allocates nothing on the host.
//
// The CHECK lines at the end are the expected output of one process
// (ctest -L examples).
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/Communicator.h"
#include "tracer/Array.h"
#include "tracer/Collectives.h"
#include "tracer/Jit.h"
#include "tracer/optim/Sharded.h"
#include "tracer/optim/Transforms.h"

#include <cmath>
#include <cstdio>

using namespace cotangent;

using Params = std::map<std::string, Tensor>;
using HostParams = std::map<std::string, interp::Tensor>;

constexpr int64_t kBatch = 8, kWidth = 16;

/// Rows [first, first + rows) of step s's batch: x, and y = sin of x's sum.
std::pair<interp::Tensor, interp::Tensor> batch(int s, int64_t first, int64_t rows) {
  std::vector<float> x, y;
  for (int64_t r = first; r < first + rows; ++r) {
    float sum = 0;
    for (int64_t c = 0; c < kWidth; ++c) {
      x.push_back(std::sin(0.37f * static_cast<float>(s * 97 + r * kWidth + c)));
      sum += x.back();
    }
    y.push_back(std::sin(sum));
  }
  return {array::from(x, {rows, kWidth}), array::from(y, {rows, 1})};
}

Tensor loss(const Params &p, const Tensor &x, const Tensor &y) {
  Tensor h = np::tanh(np::matmul(x, p.at("w0")) + p.at("b0"));
  Tensor d = np::matmul(h, p.at("w1")) - y;
  return np::mean(d * d);
}

/// Steps of `tx` on this process's rows; the gradients averaged over the
/// job's processes unless `tx` reduces them itself (zero1).
void train(const char *title, const optim::GradientTransformation &tx, bool average) {
  comm::Communicator &job = comm::world();
  const int64_t rows = kBatch / job.size(), first = job.rank() * rows;
  auto step = [&](const Params &p, const optim::State &s, const Tensor &x, const Tensor &y) {
    auto [value, grads] = value_and_grad(loss, argnums<0>)(p, x, y);
    if (average)
      grads = lax::pmean(grads, "data");
    auto [updates, next] = optim::update(tx, grads, s, p);
    return std::tuple{optim::apply_updates(p, updates), next, lax::pmean(value, "data")};
  };
  HostParams params{{"w0", array::full({kWidth, 32}, 0.1f)}, {"b0", array::zeros({32})},
                    {"w1", array::full({32, 1}, -0.05f)}};
  for (int64_t i = 0; i < kWidth * 32; ++i) // a little asymmetry to learn from
    params.at("w0").setDouble(i, 0.1 * std::cos(0.1 * static_cast<double>(i)));
  auto state = jit([&](const Params &p) { return optim::init(tx, p); })(params);
  int64_t stateBytes = 0;
  for (const auto &[name, leaf] : state)
    stateBytes += leaf.getByteSize();
  auto jitted = jit(step, {.donate = {0, 1}});
  interp::Tensor value = array::zeros({});
  if (job.rank() == 0)
    std::printf("== %s: %d process%s, %lld rows each, AdamW state %lld bytes a process ==\n",
                title, job.size(), job.size() == 1 ? "" : "es", static_cast<long long>(rows),
                static_cast<long long>(stateBytes));
  for (int s = 0; s < 5; ++s) {
    auto [x, y] = batch(s, first, rows);
    jitted.call_into(std::tie(params, state, value), params, state, x, y);
    if (job.rank() == 0)
      std::printf("step %d: loss %.5f\n", s + 1, value.getDouble(0));
  }
}

int main() {
  const int processes = comm::world().size();
  auto adamw = [](const std::string &normAxis) {
    return optim::chain({optim::clip_by_global_norm(1.0, normAxis), optim::adamw(1e-2)});
  };
  train("gradients averaged (pmean)", adamw(""), true);
  train("ZeRO-1 (optim::zero1)", optim::zero1(adamw("data"), "data", processes), false);
  return 0;
}

// CHECK-LABEL: == gradients averaged (pmean): 1 process, 8 rows each, AdamW state 4612 bytes a process ==
// CHECK-NEXT: step 1: loss 0.370{{[0-9]+}}
// CHECK-NEXT: step 2: loss 0.198{{[0-9]+}}
// CHECK-NEXT: step 3: loss 0.100{{[0-9]+}}
// CHECK-NEXT: step 4: loss 0.005{{[0-9]+}}
// CHECK-NEXT: step 5: loss 0.018{{[0-9]+}}
// Under mpirun -np 2 the same losses, and ZeRO-1's state is 2308 bytes a process.
// CHECK-LABEL: == ZeRO-1 (optim::zero1): 1 process, 8 rows each, AdamW state 4612 bytes a process ==
// CHECK-NEXT: step 1: loss 0.370{{[0-9]+}}
// CHECK-NEXT: step 2: loss 0.198{{[0-9]+}}
// CHECK-NEXT: step 3: loss 0.100{{[0-9]+}}
// CHECK-NEXT: step 4: loss 0.005{{[0-9]+}}
// CHECK-NEXT: step 5: loss 0.018{{[0-9]+}}
