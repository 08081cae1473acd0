//===- CudaCollectives.cpp - compiled collectives on the GPU, over NCCL ----===//
//
// What compiled GPU code's collectives call (bound to
// cotangent_collective_start / _wait). NCCL runs each on a communication
// stream: start records an event on the compute stream, has the
// communication stream wait for it, enqueues the NCCL call and records an
// event after it; wait has the compute stream wait for that event. Neither
// the host nor the compute stream blocks before the result is needed
// (--jx-defer-collective-waits puts the wait there), so a gradient's
// reduction runs beside the rest of the backward, as llm.c's does on its
// second stream.
//
// NCCL is opened with dlopen: $COTANGENT_NCCL_LIBRARY, else libnccl.so.2 by
// soname (a GPU machine with JAX has the copy its CUDA plugin installed;
// docs/distributed.md says how to point at it); its header, from PyPI's
// nvidia-nccl-cu13 wheel (scripts/nccl-wheel.sh), gives the types. Its
// communicator spans the job's ranks (comm::world(): MPI under mpirun, one
// process alone), rank 0's unique id sent to all through MPI, as llm.c
// bootstraps NCCL. A build without the header refuses collectives on the
// GPU with that reason.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/Collectives.h"
#include "runtime/comm/Communicator.h"
#include "runtime/cuda/CudaRuntime.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#ifdef COTANGENT_HAVE_NCCL
#include <nccl.h>
#endif

using namespace cotangent;

namespace {

std::mutex mutex;

#ifdef COTANGENT_HAVE_NCCL

struct Nccl {
  decltype(&::ncclGetUniqueId) getUniqueId = nullptr;
  decltype(&::ncclCommInitRank) commInitRank = nullptr;
  decltype(&::ncclAllReduce) allReduce = nullptr;
  decltype(&::ncclAllGather) allGather = nullptr;
  decltype(&::ncclReduceScatter) reduceScatter = nullptr;
  decltype(&::ncclSend) send = nullptr;
  decltype(&::ncclRecv) recv = nullptr;
  decltype(&::ncclGroupStart) groupStart = nullptr;
  decltype(&::ncclGroupEnd) groupEnd = nullptr;
  decltype(&::ncclGetErrorString) errorString = nullptr;
  ncclComm_t comm = nullptr;
  void *stream = nullptr;                      ///< the communication stream
  int rank = 0;
  int64_t started = 0;
  std::unordered_map<int64_t, void *> pending; ///< ticket -> its event
  std::vector<void *> freeEvents;
};

/// NCCL loaded and its communicator made, or null and `why`.
Nccl *nccl(std::string &why) {
  static Nccl *ready = nullptr;
  static std::string failure;
  if (ready || !failure.empty()) {
    why = failure;
    return ready;
  }
  auto fail = [&](const std::string &message) -> Nccl * {
    failure = why = message;
    return nullptr;
  };
  if (cotangent_cuda_init() != 0)
    return fail(cotangent_cuda_last_error());
  const char *given = std::getenv("COTANGENT_NCCL_LIBRARY");
  void *lib = dlopen(given ? given : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return fail(std::string("cannot open NCCL (") + dlerror() +
                "): set COTANGENT_NCCL_LIBRARY to a libnccl.so.2, e.g. the nvidia-nccl-cu13 "
                "wheel's that JAX's CUDA plugin installs");
  auto *n = new Nccl;
  bool all = true;
  auto bind = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    all &= fn != nullptr;
  };
  bind(n->getUniqueId, "ncclGetUniqueId");
  bind(n->commInitRank, "ncclCommInitRank");
  bind(n->allReduce, "ncclAllReduce");
  bind(n->allGather, "ncclAllGather");
  bind(n->reduceScatter, "ncclReduceScatter");
  bind(n->send, "ncclSend");
  bind(n->recv, "ncclRecv");
  bind(n->groupStart, "ncclGroupStart");
  bind(n->groupEnd, "ncclGroupEnd");
  bind(n->errorString, "ncclGetErrorString");
  if (!all)
    return fail("the NCCL opened lacks an entry point this runtime calls (NCCL 2.7 or later)");
  comm::Communicator &group = comm::world();
  // Rank 0's id to every rank, through the job's group (MPI).
  ncclUniqueId id{};
  if (group.rank() == 0 && n->getUniqueId(&id) != ncclSuccess)
    return fail("ncclGetUniqueId failed");
  std::vector<ncclUniqueId> ids(static_cast<size_t>(group.size()));
  group.allGather(&id, ids.data(), sizeof id);
  if (ncclResult_t r = n->commInitRank(&n->comm, group.size(), ids[0], group.rank());
      r != ncclSuccess)
    return fail(std::string("ncclCommInitRank: ") + n->errorString(r));
  n->rank = group.rank();
  if (!(n->stream = cotangent_cuda_stream_create()))
    return fail(cotangent_cuda_last_error());
  ready = n;
  return ready;
}

ncclDataType_t ncclType(comm::ElementKind kind) {
  switch (kind) {
  case comm::ElementKind::F64:
    return ncclFloat64;
  case comm::ElementKind::BF16:
    return ncclBfloat16;
  case comm::ElementKind::F16:
    return ncclFloat16;
  case comm::ElementKind::I32:
    return ncclInt32;
  case comm::ElementKind::I64:
    return ncclInt64;
  default:
    return ncclFloat32;
  }
}

/// Enqueues the collective on NCCL's stream; false with the error reported.
bool enqueue(Nccl &n, comm::CollectiveKind kind, comm::ElementKind element, int64_t elementBytes,
             void *in, void *out, int64_t outer, int64_t inner, const int64_t *pairs,
             int64_t pairCount) {
  auto ok = [&](ncclResult_t r, const char *what) {
    if (r == ncclSuccess)
      return true;
    cotangent_cuda_report_error((std::string(what) + ": " + n.errorString(r)).c_str());
    return false;
  };
  const size_t count = static_cast<size_t>(outer * inner), bytes = count * elementBytes;
  auto *stream = static_cast<cudaStream_t>(n.stream);
  switch (kind) {
  case comm::CollectiveKind::Psum:
  case comm::CollectiveKind::Pmean:
    return ok(n.allReduce(in, out, count, ncclType(element),
                          kind == comm::CollectiveKind::Pmean ? ncclAvg : ncclSum, n.comm, stream),
              "ncclAllReduce");
  case comm::CollectiveKind::AllGather: // [rank][inner]: outer is 1 (CudaModule checked)
    return ok(n.allGather(in, out, bytes, ncclUint8, n.comm, stream), "ncclAllGather");
  case comm::CollectiveKind::PsumScatter:
    return ok(n.reduceScatter(in, out, count, ncclType(element), ncclSum, n.comm, stream),
              "ncclReduceScatter");
  case comm::CollectiveKind::Ppermute: {
    int dest = -1, source = -1;
    for (int64_t i = 0; i < pairCount; ++i) {
      if (pairs[2 * i] == n.rank)
        dest = static_cast<int>(pairs[2 * i + 1]);
      if (pairs[2 * i + 1] == n.rank)
        source = static_cast<int>(pairs[2 * i]);
    }
    if (source < 0) // no rank sends here: zeros
      cotangent_mgpuMemset16(out, 0, bytes / 2, n.stream);
    return ok(n.groupStart(), "ncclGroupStart") &&
           (dest < 0 || ok(n.send(in, bytes, ncclUint8, dest, n.comm, stream), "ncclSend")) &&
           (source < 0 || ok(n.recv(out, bytes, ncclUint8, source, n.comm, stream), "ncclRecv")) &&
           ok(n.groupEnd(), "ncclGroupEnd");
  }
  case comm::CollectiveKind::AxisIndex:
    cotangent_mgpuMemset32(out, static_cast<uint32_t>(n.rank), 1, n.stream);
    return true;
  }
  return false;
}

#endif // COTANGENT_HAVE_NCCL

} // namespace

extern "C" int cotangent_cuda_collectives_ready(const char **why) {
  static std::string reason;
  std::lock_guard<std::mutex> lock(mutex);
#ifdef COTANGENT_HAVE_NCCL
  if (nccl(reason))
    return 1;
#else
  reason = "this build has no NCCL (its header comes from PyPI's nvidia-nccl-cu13 wheel: "
           "scripts/nccl-wheel.sh build/nccl, then reconfigure)";
#endif
  if (why)
    *why = reason.c_str();
  return 0;
}

extern "C" int64_t cotangent_cuda_collective_start(int64_t kind, int64_t element,
                                                   int64_t elementBytes, intptr_t in, intptr_t out,
                                                   int64_t outer, int64_t inner, intptr_t perm,
                                                   int64_t pairs) {
  std::lock_guard<std::mutex> lock(mutex);
#ifdef COTANGENT_HAVE_NCCL
  std::string why;
  Nccl *n = nccl(why);
  if (!n) {
    cotangent_cuda_report_error(why.c_str());
    return 0;
  }
  void *compute = cotangent_mgpuStreamCreate(); // the compute stream
  void *ready = n->freeEvents.empty() ? cotangent_mgpuEventCreate() : n->freeEvents.back();
  if (!n->freeEvents.empty())
    n->freeEvents.pop_back();
  // The operand is made on the compute stream: NCCL's stream waits for it.
  cotangent_mgpuEventRecord(ready, compute);
  cotangent_mgpuStreamWaitEvent(n->stream, ready);
  enqueue(*n, static_cast<comm::CollectiveKind>(kind), static_cast<comm::ElementKind>(element),
          elementBytes, reinterpret_cast<void *>(in), reinterpret_cast<void *>(out), outer, inner,
          reinterpret_cast<const int64_t *>(perm), pairs);
  cotangent_mgpuEventRecord(ready, n->stream); // reused: now "the collective is done"
  const int64_t ticket = ++n->started;
  n->pending[ticket] = ready;
  return ticket;
#else
  cotangent_cuda_report_error("collectives on the GPU need NCCL: this build has none");
  return 0;
#endif
}

extern "C" void cotangent_cuda_collective_wait(int64_t ticket) {
  std::lock_guard<std::mutex> lock(mutex);
#ifdef COTANGENT_HAVE_NCCL
  std::string why;
  Nccl *n = nccl(why);
  if (!n)
    return;
  auto it = n->pending.find(ticket);
  if (it == n->pending.end())
    return;
  // The compute stream's later work (what reads the result, a free of either
  // buffer) runs after the collective; the host does not wait.
  cotangent_mgpuStreamWaitEvent(cotangent_mgpuStreamCreate(), it->second);
  n->freeEvents.push_back(it->second);
  n->pending.erase(it);
#else
  (void)ticket;
#endif
}
