//===- Communicator.h - the group of processes a step runs on ---*- C++ -*-===//
//
// What compiled collectives (runtime/comm/Collectives.h) run on: the ranks
// of the job, each a process. Started by `mpirun`, the group is MPI's world,
// through a plugin (libCotangentMpi.so, MpiCommunicator.cpp) loaded only then,
// so that nothing else links MPI; started alone, it is one rank, on which
// every collective is its one-rank meaning (a sum of one operand, ...). Every
// mesh axis of a program names this one group for now.
//
// No MLIR here: tools, the trainer and runtimes share it.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_COMM_COMMUNICATOR_H
#define COTANGENT_RUNTIME_COMM_COMMUNICATOR_H

#include "runtime/host/HalfFloat.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cotangent::comm {

/// The element types a reduction adds (what compiled code passes).
enum class ElementKind : int64_t { F32 = 0, F64 = 1, BF16 = 2, F16 = 3, I32 = 4, I64 = 5 };

/// bf16 or f16 elements (`kind`) as the f32s they are: sums of them are
/// done in f32 and rounded once (narrowHalves).
inline std::vector<float> widenHalves(const void *in, int64_t count, ElementKind kind) {
  std::vector<float> wide(static_cast<size_t>(count));
  const auto *bits = static_cast<const uint16_t *>(in);
  for (int64_t i = 0; i < count; ++i)
    wide[i] = kind == ElementKind::BF16 ? host::bf16ToFloat(bits[i]) : host::f16ToFloat(bits[i]);
  return wide;
}
inline void narrowHalves(const std::vector<float> &wide, void *out, ElementKind kind) {
  auto *bits = static_cast<uint16_t *>(out);
  for (size_t i = 0; i < wide.size(); ++i)
    bits[i] = kind == ElementKind::BF16 ? host::floatToBf16(wide[i]) : host::floatToF16(wide[i]);
}

/// A group of ranks and the collectives over it. Every rank calls the same
/// collectives in the same order; each call returns when this rank's part is
/// done. Buffers are contiguous; `in` and `out` may be the same only where
/// said.
class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// What runs the group ("MPI (Open MPI 4.1.4)", "one process").
  virtual std::string name() const = 0;

  /// out = the sum of every rank's `in` (`count` elements; in == out allowed).
  /// f32, f64, i32, i64 are added in their type; bf16 and f16 in f32, rounded once.
  virtual void allReduceSum(const void *in, void *out, int64_t count, ElementKind kind) = 0;
  /// out = every rank's `bytes` of `in`, in rank order.
  virtual void allGather(const void *in, void *out, int64_t bytes) = 0;
  /// out (`count` elements) = block `rank()` of the sum of every rank's `in`
  /// (`size() * count` elements, rank-major).
  virtual void reduceScatterSum(const void *in, void *out, int64_t count, ElementKind kind) = 0;
  /// Sends `bytes` of `send` to rank `dest` and receives as many into `recv`
  /// from rank `source`; -1 for none (recv then untouched).
  virtual void sendRecv(const void *send, int dest, void *recv, int source, int64_t bytes) = 0;
  virtual void barrier() = 0;
};

/// The job's group: MPI's world when this process was started by an MPI
/// launcher (mpirun sets OMPI_COMM_WORLD_SIZE or PMI_SIZE), else one rank.
/// The first call loads MPI; a launcher without the plugin, or an MPI that
/// fails to start, ends the process with a message (exit 1).
Communicator &world();

/// True when this process was started by an MPI launcher.
bool launchedByMpi();

} // namespace cotangent::comm

#endif // COTANGENT_RUNTIME_COMM_COMMUNICATOR_H
