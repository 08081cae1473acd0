//===- FakeCudaDriver.cpp - a CUDA driver double for machines without a GPU ===//
//
// Built as libcuda.so.1 in a folder of its own: a test puts that folder on
// LD_LIBRARY_PATH, and runtime/cuda (which dlopens the driver) then runs
// everything but kernels here. Device memory is host memory (zeroed, as a
// unified address space has it); copies and memsets run; kernels and GEMMs
// (FakeCublas.cpp) run nothing. What it checks is what the runtime asks of
// the driver, the rules the real one enforces:
//
// - copies, memsets and GEMM operands lie inside live blocks (device or
//   pinned; a copy to or from pageable memory only outside a capture);
// - frees are of live blocks, once, on a stream that waits for every copy
//   another stream makes of them (or after the host waited for it);
// - stream capture: nothing synchronizes a capturing stream, an event
//   recorded in the capture, or the context; a stream that joins the capture
//   (by waiting for one of its events) joins back before it ends; a graph's
//   own allocations are freed before its next launch, and a graph does not
//   free a block it did not allocate (its second launch would free it twice).
//
// A broken rule fails the call with the driver's error code and prints why
// on stderr ("fake CUDA driver: ..."), so the test sees it in the runtime's
// error or in the output.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

struct CUstream_st {
  unsigned ops = 0; ///< work enqueued so far (what a later event covers)
  unsigned synchronized = 0; ///< ops the host has waited for
  std::map<CUstream, unsigned> waited; ///< ops of other streams this one waits for
};
struct CUevent_st {
  CUstream stream = nullptr;
  unsigned covers = 0; ///< the stream's ops when it was recorded
  bool captured = false;
  double time = 0;
};
struct CUmod_st {};
struct CUfunc_st {};
struct CUgraph_st;
struct CUgraphExec_st {
  CUgraph graph;
};

namespace {

enum class Kind { Device, Pinned };

struct Graph;

struct Block {
  size_t bytes;
  Kind kind;
  Graph *graph = nullptr; ///< the graph whose memory it is, if any
  /// Copies that use it, by stream: the op of each stream that last did.
  std::map<CUstream, unsigned> users;
};

/// A recorded step: its work, and the memory it allocates: each block it
/// leaves allocated (a result) is live from a launch until freed after it;
/// those it frees itself are its own.
struct Graph {
  struct Result {
    size_t bytes;
    bool live = false;
  };
  std::vector<std::function<void()>> nodes;
  std::map<char *, Result> results;
  std::vector<char *> internal;
};

} // namespace

struct CUgraph_st : Graph {};

namespace {

struct Capture {
  CUstream origin = nullptr;
  std::unique_ptr<CUgraph_st> graph = std::make_unique<CUgraph_st>();
  std::map<CUstream, unsigned> joined; ///< stream -> its ops when it last joined back
  bool invalid = false;
};

struct Driver {
  std::recursive_mutex mutex;
  std::map<char *, Block> blocks;
  std::unique_ptr<Capture> capture;
  std::set<CUfunction> functions;
  std::set<CUstream> streams;
  double clock = 0;
  /// Copies between device blocks and host memory (pageable or pinned):
  /// count and bytes, to the device and to the host (fakeCudaCopies).
  unsigned long long copies[4] = {0, 0, 0, 0};
};

Driver &driver() {
  static Driver &d = *[] {
    // FAKE_CUDA_COPIES=1: the host<->device copies, printed at exit.
    if (std::getenv("FAKE_CUDA_COPIES"))
      std::atexit([] {
        unsigned long long c[4];
        fakeCudaCopies(c);
        std::fprintf(stderr,
                     "fake CUDA copies: %llu to the device (%llu bytes), %llu to the host "
                     "(%llu bytes)\n",
                     c[0], c[1], c[2], c[3]);
      });
    return new Driver;
  }();
  return d;
}

/// FAKE_CUDA_TRACE=1 prints every allocation and free (what a leak is made of).
void trace(const char *what, const void *p, size_t bytes) {
  static const bool on = std::getenv("FAKE_CUDA_TRACE") != nullptr;
  if (on)
    std::fprintf(stderr, "fake CUDA trace: %s %p %zu%s\n", what, p, bytes,
                 driver().capture ? " (capturing)" : "");
}

CUresult fail(CUresult code, const std::string &why) {
  std::fprintf(stderr, "fake CUDA driver: %s\n", why.c_str());
  if (Capture *c = driver().capture.get())
    c->invalid = true;
  return code;
}

/// The block holding [p, p + bytes), or null.
Block *blockOf(const void *p, size_t bytes) {
  auto &blocks = driver().blocks;
  auto *c = static_cast<char *>(const_cast<void *>(p));
  auto it = blocks.upper_bound(c);
  if (it == blocks.begin())
    return nullptr;
  --it;
  return c + bytes <= it->first + std::max<size_t>(it->second.bytes, 1) ? &it->second : nullptr;
}

bool capturing(CUstream s) {
  Capture *c = driver().capture.get();
  return c && (s == c->origin || c->joined.count(s));
}

/// Runs `work` in stream order: recorded while `s` is captured, else now.
CUresult enqueue(CUstream s, std::function<void()> work) {
  if (s)
    ++s->ops;
  if (capturing(s))
    driver().capture->graph->nodes.push_back(std::move(work));
  else
    work();
  return CUDA_SUCCESS;
}

char *allocate(size_t bytes, Kind kind) {
  auto *p = static_cast<char *>(std::calloc(std::max<size_t>(bytes, 1), 1));
  driver().blocks.emplace(p, Block{bytes, kind});
  return p;
}

CUresult release(void *p, Kind kind, const char *what) {
  auto &blocks = driver().blocks;
  auto it = blocks.find(static_cast<char *>(p));
  if (it == blocks.end() || it->second.kind != kind)
    return fail(CUDA_ERROR_INVALID_VALUE, std::string(what) + " of a pointer that is not a live " +
                                              (kind == Kind::Pinned ? "pinned" : "device") +
                                              " block");
  std::free(p);
  blocks.erase(it);
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

void fakeCudaEnqueue(CUstream s, void (*fn)(void *), void *arg) {
  std::lock_guard lock(driver().mutex);
  enqueue(s, [fn, arg] { fn(arg); });
}

void fakeCudaCopies(unsigned long long counts[4]) {
  std::lock_guard lock(driver().mutex);
  std::copy(driver().copies, driver().copies + 4, counts);
}

int fakeCudaIsLive(const void *p, size_t bytes) {
  std::lock_guard lock(driver().mutex);
  return blockOf(p, bytes) != nullptr;
}

CUresult cuInit(unsigned) { return CUDA_SUCCESS; }

CUresult cuGetErrorString(CUresult, const char **name) {
  *name = "fake CUDA driver error";
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int) {
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice) {
  // An H100's: compute capability 9.0, 132 multiprocessors.
  *value = attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9
           : attribute == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT   ? 132
                                                                     : 0;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  static int token;
  *context = reinterpret_cast<CUcontext>(&token);
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

CUresult cuCtxSynchronize(void) {
  std::lock_guard lock(driver().mutex);
  if (driver().capture)
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuCtxSynchronize during a capture");
  for (CUstream s : driver().streams)
    s->synchronized = s->ops;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  if (!image)
    return fail(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData of no image");
  *module = new CUmod_st;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned, CUjit_option *,
                            void **) {
  return cuModuleLoadData(module, image);
}

CUresult cuModuleUnload(CUmodule module) {
  delete module;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  std::lock_guard lock(driver().mutex);
  if (!module || !name || !*name)
    return fail(CUDA_ERROR_NOT_FOUND, "cuModuleGetFunction without a module or name");
  *function = new CUfunc_st;
  driver().functions.insert(*function);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned, CUstream s, void **params, void **) {
  std::lock_guard lock(driver().mutex);
  if (!driver().functions.count(f))
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuLaunchKernel of a function never looked up");
  if (!gx || !gy || !gz || !bx || !by || !bz || bx * by * bz > 1024)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel with an empty grid or a block over "
                                          "1024 threads");
  // The hardware's limits: 2^31 - 1 blocks along x, 65535 along y and z;
  // 1024 threads along x and y, 64 along z.
  if (gx > 0x7FFFFFFFu || gy > 65535 || gz > 65535 || bx > 1024 || by > 1024 || bz > 64)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel with a grid or block beyond the "
                                          "device's limits");
  if (!params)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel without parameters");
  return enqueue(s, [] {});
}

CUresult cuStreamCreate(CUstream *s, unsigned) {
  std::lock_guard lock(driver().mutex);
  *s = new CUstream_st;
  driver().streams.insert(*s);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream s) {
  std::lock_guard lock(driver().mutex);
  if (capturing(s))
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuStreamDestroy of a capturing stream");
  driver().streams.erase(s);
  delete s;
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream s) {
  std::lock_guard lock(driver().mutex);
  if (capturing(s))
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuStreamSynchronize of a capturing "
                                                       "stream");
  if (s)
    s->synchronized = s->ops;
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned) {
  *event = new CUevent_st;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event) {
  delete event;
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream s) {
  std::lock_guard lock(driver().mutex);
  event->stream = s;
  event->covers = s ? s->ops : 0;
  event->captured = capturing(s);
  event->time = driver().clock += 1e-3;
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  std::lock_guard lock(driver().mutex);
  if (event->captured && driver().capture)
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuEventSynchronize of an event of the "
                                                       "capture");
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  *ms = static_cast<float>(end->time - start->time);
  return CUDA_SUCCESS;
}

CUresult cuStreamWaitEvent(CUstream s, CUevent event, unsigned) {
  std::lock_guard lock(driver().mutex);
  if (s && event->stream)
    s->waited[event->stream] = std::max(s->waited[event->stream], event->covers);
  Capture *c = driver().capture.get();
  if (!c || !event->captured)
    return CUDA_SUCCESS;
  if (s == c->origin) // a joined stream joins back up to what the event covers
    c->joined[event->stream] = std::max(c->joined[event->stream], event->covers);
  else if (!c->joined.count(s))
    c->joined[s] = s->ops; // joins the capture with nothing of its own yet
  return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture(CUstream s, CUstreamCaptureMode) {
  std::lock_guard lock(driver().mutex);
  if (driver().capture)
    return fail(CUDA_ERROR_ILLEGAL_STATE, "cuStreamBeginCapture during a capture");
  driver().capture = std::make_unique<Capture>();
  driver().capture->origin = s;
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream s, CUgraph *graph) {
  std::lock_guard lock(driver().mutex);
  std::unique_ptr<Capture> c = std::move(driver().capture);
  *graph = nullptr;
  if (!c || c->origin != s)
    return fail(CUDA_ERROR_ILLEGAL_STATE, "cuStreamEndCapture of a stream not capturing");
  for (const auto &[stream, joinedUpTo] : c->joined)
    if (stream->ops > joinedUpTo) {
      fail(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "a stream joined the capture and did not join "
                                               "back before it ended");
      c->invalid = true;
    }
  // What the graph leaves allocated is memory from its launches on.
  for (const auto &[p, result] : c->graph->results)
    driver().blocks.erase(p);
  if (c->invalid)
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  *graph = c->graph.release();
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiate(CUgraphExec *exec, CUgraph graph, unsigned long long) {
  *exec = new CUgraphExec_st{graph};
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream s) {
  std::lock_guard lock(driver().mutex);
  if (driver().capture)
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuGraphLaunch during a capture");
  Graph &g = *exec->graph;
  for (auto &[p, result] : g.results)
    if (result.live)
      return fail(CUDA_ERROR_INVALID_VALUE, "cuGraphLaunch while a block the graph allocates "
                                            "is still live (not freed since its last launch)");
  for (auto &[p, result] : g.results) {
    result.live = true;
    driver().blocks.emplace(p, Block{result.bytes, Kind::Device, &g});
  }
  return enqueue(s, [nodes = g.nodes] {
    for (const auto &node : nodes)
      node();
  });
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  delete exec;
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  std::lock_guard lock(driver().mutex);
  for (const auto &[p, result] : graph->results) {
    if (result.live)
      return fail(CUDA_ERROR_INVALID_VALUE, "cuGraphDestroy while a block it allocated is live");
    std::free(p);
  }
  for (char *p : graph->internal)
    std::free(p);
  delete graph;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice) {
  static int token;
  *pool = reinterpret_cast<CUmemoryPool>(&token);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void *) { return CUDA_SUCCESS; }

CUresult cuMemAllocAsync(CUdeviceptr *ptr, size_t bytes, CUstream s) {
  std::lock_guard lock(driver().mutex);
  char *p = allocate(bytes, Kind::Device);
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  trace("cuMemAllocAsync", p, bytes);
  if (capturing(s)) {
    Graph *g = driver().capture->graph.get();
    driver().blocks[p].graph = g;
    g->results[p] = {bytes};
  }
  return CUDA_SUCCESS;
}

CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream s) {
  std::lock_guard lock(driver().mutex);
  auto *p = reinterpret_cast<char *>(ptr);
  auto it = driver().blocks.find(p);
  trace("cuMemFreeAsync", p, it == driver().blocks.end() ? 0 : it->second.bytes);
  if (it == driver().blocks.end() || it->second.kind != Kind::Device)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemFreeAsync of a pointer that is not a live "
                                          "device block");
  Graph *g = it->second.graph;
  if (capturing(s)) {
    if (g != driver().capture->graph.get())
      return fail(CUDA_ERROR_INVALID_VALUE, "a capture frees a block it did not allocate: each "
                                            "launch of the graph would free it again");
    driver().blocks.erase(it); // the graph's own memory from now on
    g->results.erase(p);
    g->internal.push_back(p);
    return enqueue(s, [] {});
  }
  for (const auto &[user, op] : it->second.users)
    if (user != s && user->synchronized < op && (!s || s->waited[user] < op))
      return fail(CUDA_ERROR_ILLEGAL_STATE, "cuMemFreeAsync of a block a copy on another stream "
                                            "may still use: the freeing stream does not wait "
                                            "for it");
  if (g) { // a graph's result, freed after its launch: the graph keeps the memory
    g->results[p].live = false;
    driver().blocks.erase(it);
    return CUDA_SUCCESS;
  }
  return release(p, Kind::Device, "cuMemFreeAsync");
}

CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  std::lock_guard lock(driver().mutex);
  *ptr = reinterpret_cast<CUdeviceptr>(allocate(bytes, Kind::Device));
  return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void **ptr, size_t bytes, unsigned) {
  std::lock_guard lock(driver().mutex);
  *ptr = allocate(bytes, Kind::Pinned);
  return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *ptr) {
  std::lock_guard lock(driver().mutex);
  return release(ptr, Kind::Pinned, "cuMemFreeHost");
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  std::lock_guard lock(driver().mutex);
  auto *d = reinterpret_cast<void *>(dst);
  auto *from = reinterpret_cast<const void *>(src);
  Block *to = blockOf(d, bytes), *of = blockOf(from, bytes);
  if (!to && !of)
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyAsync between two ranges outside every "
                                          "block");
  if (capturing(s) && (!to || !of))
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "a captured cuMemcpyAsync to or from "
                                                       "pageable host memory");
  for (Block *b : {to, of})
    if (b && s)
      b->users[s] = s->ops + 1;
  bool toDevice = to && to->kind == Kind::Device, fromDevice = of && of->kind == Kind::Device;
  if (toDevice != fromDevice) {
    driver().copies[toDevice ? 0 : 2] += 1;
    driver().copies[toDevice ? 1 : 3] += bytes;
  }
  return enqueue(s, [d, from, bytes] { std::memmove(d, from, bytes); });
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, CUstream s) {
  std::lock_guard lock(driver().mutex);
  auto *d = reinterpret_cast<uint32_t *>(dst);
  if (!blockOf(d, count * 4))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemsetD32Async outside every block");
  return enqueue(s, [d, value, count] { std::fill(d, d + count, value); });
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count, CUstream s) {
  std::lock_guard lock(driver().mutex);
  auto *d = reinterpret_cast<uint16_t *>(dst);
  if (!blockOf(d, count * 2))
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemsetD16Async outside every block");
  return enqueue(s, [d, value, count] { std::fill(d, d + count, value); });
}

} // extern "C"
