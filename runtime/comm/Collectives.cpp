//===- Collectives.cpp - compiled collectives on the job's group ----------===//
//
// One communication thread per process runs the collectives in the order
// they were started (on one rank, they run at once, on the caller's
// thread). all_gather and psum_scatter along a dimension other than the
// first move blocks through a rank-major buffer, since MPI's (and NCCL's)
// gathers and reduce-scatters are rank-major; pmean of bf16/f16 sums and
// divides in f32 and rounds once. With a timeline (Timeline.h), each run
// and each wait that blocked is a span.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/Collectives.h"
#include "runtime/comm/Communicator.h"
#include "runtime/comm/Timeline.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
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
  std::vector<float> wide = comm::widenHalves(in, count, k);
  group.allReduceSum(wide.data(), wide.data(), count, ElementKind::F32);
  divide(wide.data(), count, ElementKind::F32, group.size());
  comm::narrowHalves(wide, out, k);
}

/// [a][b][block] -> [b][a][block] (`block` in bytes).
void swapOuter(const char *from, char *to, int64_t a, int64_t b, int64_t block) {
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      std::memcpy(to + (j * a + i) * block, from + (i * b + j) * block, static_cast<size_t>(block));
}

/// One collective, on the communication thread: what start() was given.
struct Work {
  CollectiveKind kind;
  ElementKind element;
  int64_t elementBytes;
  const char *src;
  char *dst;
  int64_t outer, inner;
  std::vector<int64_t> pairs;
};

const char *nameOf(CollectiveKind kind) {
  static const char *names[] = {"psum", "pmean", "all_gather", "psum_scatter", "ppermute",
                                "axis_index"};
  return names[static_cast<int>(kind)];
}

void run(const Work &w) {
  comm::Communicator &group = comm::world();
  const ElementKind k = w.element;
  const int64_t ranks = group.size(), count = w.outer * w.inner, eb = w.elementBytes;
  switch (w.kind) {
  case CollectiveKind::Psum:
    return group.allReduceSum(w.src, w.dst, count, k);
  case CollectiveKind::Pmean:
    return pmean(group, w.src, w.dst, count, k);
  case CollectiveKind::AllGather: {
    if (w.outer == 1)
      return group.allGather(w.src, w.dst, w.inner * eb);
    std::vector<char> rankMajor(static_cast<size_t>(ranks * count * eb));
    group.allGather(w.src, rankMajor.data(), count * eb);
    return swapOuter(rankMajor.data(), w.dst, ranks, w.outer, w.inner * eb);
  }
  case CollectiveKind::PsumScatter: {
    if (w.outer == 1)
      return group.reduceScatterSum(w.src, w.dst, w.inner, k);
    std::vector<char> rankMajor(static_cast<size_t>(ranks * count * eb));
    swapOuter(w.src, rankMajor.data(), w.outer, ranks, w.inner * eb);
    return group.reduceScatterSum(rankMajor.data(), w.dst, count, k);
  }
  case CollectiveKind::Ppermute: {
    int dest = -1, source = -1;
    for (size_t i = 0; i + 1 < w.pairs.size(); i += 2) {
      if (w.pairs[i] == group.rank())
        dest = static_cast<int>(w.pairs[i + 1]);
      if (w.pairs[i + 1] == group.rank())
        source = static_cast<int>(w.pairs[i]);
    }
    if (source < 0) // no rank sends here: zeros, as jax.lax.ppermute gives
      std::memset(w.dst, 0, static_cast<size_t>(count * eb));
    return group.sendRecv(w.src, dest, w.dst, source, count * eb);
  }
  case CollectiveKind::AxisIndex: {
    const int32_t rank = group.rank();
    std::memcpy(w.dst, &rank, sizeof rank);
    return;
  }
  }
}

/// The communication thread: runs the work in the order started; tickets
/// count up from 1, so "done" is the last ticket finished.
class CommunicationThread {
public:
  static CommunicationThread &get() {
    static CommunicationThread thread;
    return thread;
  }

  int64_t start(Work work) {
    std::unique_lock<std::mutex> lock(mutex);
    const int64_t ticket = ++started;
    if (!worker.joinable()) { // one rank: nobody to wait for
      lock.unlock();
      timed(work);
      lock.lock();
      done = ticket;
      return ticket;
    }
    queue.push_back(std::move(work));
    wake.notify_one();
    return ticket;
  }

  void wait(int64_t ticket) {
    std::unique_lock<std::mutex> lock(mutex);
    if (done >= ticket)
      return;
    const double begin = comm::timeline::now();
    finished.wait(lock, [&] { return done >= ticket; });
    comm::timeline::record("wait", "step", begin, comm::timeline::now());
  }

  ~CommunicationThread() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_one();
    if (worker.joinable())
      worker.join();
  }

private:
  CommunicationThread() {
    if (comm::world().size() > 1)
      worker = std::thread([this] { loop(); });
  }

  static void timed(const Work &work) {
    const double begin = comm::timeline::now();
    run(work);
    comm::timeline::record(nameOf(work.kind), "communication", begin, comm::timeline::now(),
                           work.outer * work.inner * work.elementBytes);
  }

  void loop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty())
        return;
      Work work = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      timed(work);
      lock.lock();
      ++done;
      finished.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable wake, finished;
  std::deque<Work> queue;
  int64_t started = 0, done = 0;
  bool stopping = false;
  std::thread worker;
};

} // namespace

extern "C" int64_t cotangent_collective_start(int64_t kind, int64_t element, int64_t elementBytes,
                                              intptr_t in, intptr_t out, int64_t outer,
                                              int64_t inner, intptr_t perm, int64_t pairs) {
  const auto *pairList = reinterpret_cast<const int64_t *>(perm);
  return CommunicationThread::get().start(
      {static_cast<CollectiveKind>(kind), static_cast<ElementKind>(element), elementBytes,
       reinterpret_cast<const char *>(in), reinterpret_cast<char *>(out), outer, inner,
       pairs ? std::vector<int64_t>(pairList, pairList + 2 * pairs) : std::vector<int64_t>{}});
}

extern "C" void cotangent_collective_wait(int64_t ticket) {
  CommunicationThread::get().wait(ticket);
}
