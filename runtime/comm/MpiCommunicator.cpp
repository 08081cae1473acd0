//===- MpiCommunicator.cpp - the job's ranks over MPI (a plugin) ----------===//
//
// Built into libCotangentMpi.so, the one binary that links MPI; Communicator.cpp
// loads it when mpirun started the process. MPI_COMM_WORLD is the group;
// MPI is started for calls from one thread at a time (the step's), and
// finalized at exit. bf16 and f16 are summed in f32 (MPI has neither type)
// and rounded once, round-to-nearest-even.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/Communicator.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using cotangent::comm::Communicator;
using cotangent::comm::ElementKind;
namespace comm = cotangent::comm;

MPI_Datatype datatypeOf(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
    return MPI_DOUBLE;
  case ElementKind::I32:
    return MPI_INT32_T;
  case ElementKind::I64:
    return MPI_INT64_T;
  default:
    return MPI_FLOAT;
  }
}

bool isHalf(ElementKind kind) { return kind == ElementKind::BF16 || kind == ElementKind::F16; }

class MpiWorld final : public Communicator {
public:
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return name_; }

  void allReduceSum(const void *in, void *out, int64_t count, ElementKind kind) override {
    if (isHalf(kind)) {
      std::vector<float> wide = comm::widenHalves(in, count, kind);
      MPI_Allreduce(MPI_IN_PLACE, wide.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
      return comm::narrowHalves(wide, out, kind);
    }
    MPI_Allreduce(in == out ? MPI_IN_PLACE : in, out, static_cast<int>(count), datatypeOf(kind),
                  MPI_SUM, MPI_COMM_WORLD);
  }
  void allGather(const void *in, void *out, int64_t bytes) override {
    MPI_Allgather(in, static_cast<int>(bytes), MPI_BYTE, out, static_cast<int>(bytes), MPI_BYTE,
                  MPI_COMM_WORLD);
  }
  void reduceScatterSum(const void *in, void *out, int64_t count, ElementKind kind) override {
    if (isHalf(kind)) {
      std::vector<float> wide = comm::widenHalves(in, count * size_, kind), mine(count);
      MPI_Reduce_scatter_block(wide.data(), mine.data(), static_cast<int>(count), MPI_FLOAT,
                               MPI_SUM, MPI_COMM_WORLD);
      return comm::narrowHalves(mine, out, kind);
    }
    MPI_Reduce_scatter_block(in, out, static_cast<int>(count), datatypeOf(kind), MPI_SUM,
                             MPI_COMM_WORLD);
  }
  void sendRecv(const void *send, int dest, void *recv, int source, int64_t bytes) override {
    MPI_Sendrecv(send, dest < 0 ? 0 : static_cast<int>(bytes), MPI_BYTE,
                 dest < 0 ? MPI_PROC_NULL : dest, 0, recv, source < 0 ? 0 : static_cast<int>(bytes),
                 MPI_BYTE, source < 0 ? MPI_PROC_NULL : source, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }

  bool start(std::string *error) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
      *error = "MPI_Init_thread failed";
      return false;
    }
    if (provided < MPI_THREAD_SERIALIZED) {
      *error = "this MPI cannot be called from more than one thread";
      return false;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    name_ = "MPI (" + std::string(version, strcspn(version, ",\n")) + ")";
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized)
        MPI_Finalize();
    });
    return true;
  }

private:
  int rank_ = 0, size_ = 1;
  std::string name_;
};

} // namespace

extern "C" __attribute__((visibility("default"))) Communicator *
cotangent_comm_mpi_create(std::string *error) {
  auto *world = new MpiWorld();
  if (!world->start(error)) {
    delete world;
    return nullptr;
  }
  return world;
}
