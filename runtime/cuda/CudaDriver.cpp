//===- CudaDriver.cpp - the C API over the CUDA driver and cuBLAS ---------===//
//
// The driver (libcuda.so.1) and cuBLAS are opened with dlopen and their
// entry points looked up by name, so nothing here needs a GPU to load: when
// the driver or a device is missing, cotangent_cuda_init() fails with
// "no CUDA device: <why>" and every other entry records an error and
// returns a null/zero value instead of calling into the driver. cuda.h and
// cublas_v2.h are included for their types only. Device and pinned blocks
// are counted by runtime/host's ByteCounter, one each; the batched matmul
// lays out its operands by runtime/host's rule, as the CPU's BLAS call does.
//
// Ordering: all compiled work (kernels, cuBLAS, allocations and frees from
// the device's default memory pool) goes to one compute stream, so nothing
// waits between launches; the host waits only where it reads device memory
// (cotangent_cuda_copy_to_host, cotangent_cuda_read_scalar) or calls
// cotangent_cuda_synchronize. Offload copies run on a second stream ordered
// against the compute stream by events.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/DeviceCounter.h"
#include "runtime/cuda/KernelProfile.h"
#include "runtime/host/StridedMatrix.h"

#include <cublas_v2.h>
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <memory>
#include <vector>
#include <mutex>
#include <string>

namespace {

#define COTANGENT_STR(x) #x
#define COTANGENT_XSTR(x) COTANGENT_STR(x)
// Each entry point by its versioned name (cuda.h maps cuMemFree to cuMemFree_v2, ...).
#define COTANGENT_DRIVER_FUNCTIONS(X)                                                          \
  X(cuInit) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetAttribute)     \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData)       \
  X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel)             \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamWaitEvent)             \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventSynchronize) X(cuEventRecord)                     \
  X(cuEventElapsedTime)                                                                          \
  X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuDeviceGetDefaultMemPool) X(cuMemPoolSetAttribute)    \
  X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiate) X(cuGraphLaunch)          \
  X(cuGraphExecDestroy) X(cuGraphDestroy)                                                        \
  X(cuMemAlloc) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemcpyAsync) X(cuMemsetD32Async) X(cuMemsetD16Async)

struct Driver {
#define COTANGENT_FIELD(fn) decltype(&::fn) fn = nullptr;
  COTANGENT_DRIVER_FUNCTIONS(COTANGENT_FIELD)
#undef COTANGENT_FIELD
  decltype(&::cublasCreate) cublasCreate = nullptr;
  decltype(&::cublasSgemmStridedBatched) cublasSgemmStridedBatched = nullptr;
  decltype(&::cublasDgemmStridedBatched) cublasDgemmStridedBatched = nullptr;
  /// The C entry (cublas_api.h also declares a C++ overload of the name).
  cublasStatus_t (*cublasGemmStridedBatchedEx)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
      const void *, cudaDataType, int, long long, const void *, cudaDataType, int, long long,
      const void *, void *, cudaDataType, int, long long, int, cublasComputeType_t,
      cublasGemmAlgo_t) = nullptr;
  decltype(&::cublasSetStream) cublasSetStream = nullptr;
  decltype(&::cublasSetMathMode) cublasSetMathMode = nullptr;

  bool ready = false;
  CUdevice device = 0;
  CUcontext context = nullptr;
  /// Where compiled code, its allocations and cuBLAS run, in program order.
  CUstream computeStream = nullptr;
  CUstream offloadStream = nullptr;
  cublasHandle_t cublas = nullptr;
  bool tf32 = false;
  int computeCapability = -1;
  int multiprocessors = 0;
  /// cuModuleGetFunction's answers: compiled code asks at every launch.
  std::map<std::pair<void *, std::string>, CUfunction> functions;
  /// Device copies of compiled code's constant globals, by host address.
  std::map<const void *, CUdeviceptr> globals;
  /// Each module's place among those holding a kernel function of the same
  /// name, by first launch (the profile's kernel names), and each function's name.
  std::map<void *, std::map<std::string, int>> moduleOrdinals;
  std::map<std::string, int> modulesPerFunction;
  std::map<CUfunction, std::string> functionNames;
};

/// The launches timed between beginKernelProfile and endKernelProfile.
struct Profile {
  bool on = false;
  struct Launch {
    std::string name;
    CUevent start = nullptr, end = nullptr;
  };
  std::vector<Launch> launches;
  std::vector<CUevent> spare; ///< events of an earlier profile, reused
};

struct State {
  std::recursive_mutex mutex;
  Driver driver;
  std::string error;
  bool initTried = false;
  cotangent::host::ByteCounter device; ///< managed blocks of cotangent_cuda_alloc
  cotangent::host::ByteCounter pinned; ///< pinned host blocks of cotangent_cuda_host_alloc
  /// While a capture runs: the blocks allocated in it, and those freed.
  bool capturing = false;
  std::map<void *, int64_t> capturedAllocs;
  /// Pinned blocks freed, by size, for the next allocation of that size:
  /// pinning pages costs milliseconds, and a step offloads every time.
  std::multimap<int64_t, void *> pinnedCache;
  /// Pinned blocks a recorded step uses (allocated or freed while it was
  /// recorded): its replays write them, so they wait for the graph's end.
  std::vector<void *> capturedPinned;
  std::set<void *> graphPinned;
  std::map<void *, int64_t> pinnedSizes; ///< every pinned block ever made
  Profile profile;
};

/// A step recorded on the compute stream, and the blocks each launch leaves
/// allocated (its results) with their sizes.
struct Graph {
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<std::pair<void *, int64_t>> leftovers;
  std::vector<void *> pinned; ///< pinned blocks its replays use
};

/// Never destroyed: a step library's destructor (unloading its kernels)
/// may run after this file's statics would be, at exit.
State &state() {
  static State &s = *new State;
  return s;
}

void setError(const std::string &message) {
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  if (state().error.empty())
    state().error = message;
}

/// Which of `count` devices this process uses: $COTANGENT_CUDA_DEVICE, else
/// its rank on this machine when an MPI launcher started several (one GPU
/// each, as llm.c assigns them), else 0.
int deviceIndex(int count) {
  for (const char *name : {"COTANGENT_CUDA_DEVICE", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"})
    if (const char *env = std::getenv(name)) {
      char *end = nullptr;
      long index = std::strtol(env, &end, 10);
      if (end != env && *end == '\0' && index >= 0)
        return static_cast<int>(index % count);
    }
  return 0;
}

/// Records a failed driver call; returns true when `result` is a success.
bool check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  if (state().driver.cuGetErrorString)
    state().driver.cuGetErrorString(result, &name);
  setError(std::string(what) + " failed: " + (name ? name : "unknown CUDA error") + " (" +
           std::to_string(static_cast<int>(result)) + ")");
  return false;
}

/// The driver, initialized once; null (with the error set) without a device.
Driver *driver() {
  State &s = state();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  if (s.driver.ready)
    return &s.driver;
  if (s.initTried) {
    setError("no CUDA device: the CUDA runtime could not be initialized");
    return nullptr;
  }
  s.initTried = true;
  Driver &d = s.driver;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    setError(std::string("no CUDA device: cannot load the CUDA driver (libcuda.so.1): ") +
             dlerror());
    return nullptr;
  }
#define COTANGENT_LOAD(fn)                                                                     \
  d.fn = reinterpret_cast<decltype(d.fn)>(dlsym(lib, COTANGENT_XSTR(fn)));                     \
  if (!d.fn) {                                                                                 \
    setError("no CUDA device: the CUDA driver lacks " COTANGENT_XSTR(fn));                    \
    return nullptr;                                                                            \
  }
  COTANGENT_DRIVER_FUNCTIONS(COTANGENT_LOAD)
#undef COTANGENT_LOAD
  int count = 0;
  CUresult init = d.cuInit(0);
  if (init != CUDA_SUCCESS || d.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    const char *name = nullptr;
    d.cuGetErrorString(init, &name);
    setError(std::string("no CUDA device: ") +
             (init != CUDA_SUCCESS ? std::string("cuInit failed: ") + (name ? name : "?")
                                   : "the driver reports no device"));
    return nullptr;
  }
  int major = 0, minor = 0;
  if (!check(d.cuDeviceGet(&d.device, deviceIndex(count)), "cuDeviceGet") ||
      !check(d.cuDevicePrimaryCtxRetain(&d.context, d.device), "cuDevicePrimaryCtxRetain") ||
      !check(d.cuCtxSetCurrent(d.context), "cuCtxSetCurrent") ||
      !check(d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                    d.device), "cuDeviceGetAttribute") ||
      !check(d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                    d.device), "cuDeviceGetAttribute") ||
      !check(d.cuDeviceGetAttribute(&d.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                    d.device), "cuDeviceGetAttribute") ||
      !check(d.cuStreamCreate(&d.computeStream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
      !check(d.cuStreamCreate(&d.offloadStream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    return nullptr;
  // The default pool keeps freed blocks for reuse instead of returning them
  // to the driver at every synchronization: allocation is a pool operation.
  CUmemoryPool pool = nullptr;
  cuuint64_t keep = ~cuuint64_t(0);
  if (!check(d.cuDeviceGetDefaultMemPool(&pool, d.device), "cuDeviceGetDefaultMemPool") ||
      !check(d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep),
             "cuMemPoolSetAttribute"))
    return nullptr;
  d.computeCapability = 10 * major + minor;
  if (const char *tf32 = std::getenv("COTANGENT_CUDA_TF32"))
    d.tf32 = std::strcmp(tf32, "0") != 0 && *tf32;
  d.ready = true;
  return &d;
}

/// cuBLAS, opened on first use.
Driver *blas() {
  Driver *d = driver();
  if (!d)
    return nullptr;
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  if (d->cublas)
    return d;
  // By soname first (the loader's path), then in the toolkit's lib64/ and lib/.
  std::string home = std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : "/usr/local/cuda";
  void *lib = nullptr;
  for (const std::string &name :
       {std::string(COTANGENT_CUBLAS_SONAME), std::string("libcublas.so"),
        home + "/lib64/" COTANGENT_CUBLAS_SONAME, home + "/lib/" COTANGENT_CUBLAS_SONAME,
        home + "/lib64/libcublas.so", home + "/lib/libcublas.so"})
    if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!lib) {
    setError(std::string("cannot load cuBLAS (" COTANGENT_CUBLAS_SONAME "): ") + dlerror());
    return nullptr;
  }
  d->cublasCreate = reinterpret_cast<decltype(d->cublasCreate)>(dlsym(lib, "cublasCreate_v2"));
  d->cublasSgemmStridedBatched = reinterpret_cast<decltype(d->cublasSgemmStridedBatched)>(
      dlsym(lib, "cublasSgemmStridedBatched"));
  d->cublasDgemmStridedBatched = reinterpret_cast<decltype(d->cublasDgemmStridedBatched)>(
      dlsym(lib, "cublasDgemmStridedBatched"));
  d->cublasGemmStridedBatchedEx = reinterpret_cast<decltype(d->cublasGemmStridedBatchedEx)>(
      dlsym(lib, "cublasGemmStridedBatchedEx"));
  d->cublasSetStream =
      reinterpret_cast<decltype(d->cublasSetStream)>(dlsym(lib, "cublasSetStream_v2"));
  d->cublasSetMathMode =
      reinterpret_cast<decltype(d->cublasSetMathMode)>(dlsym(lib, "cublasSetMathMode"));
  if (!d->cublasCreate || !d->cublasSgemmStridedBatched || !d->cublasDgemmStridedBatched ||
      !d->cublasGemmStridedBatchedEx ||
      !d->cublasSetStream || !d->cublasSetMathMode ||
      d->cublasCreate(&d->cublas) != CUBLAS_STATUS_SUCCESS ||
      d->cublasSetStream(d->cublas, d->computeStream) != CUBLAS_STATUS_SUCCESS ||
      d->cublasSetMathMode(d->cublas, d->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                              : CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
    setError("cannot initialize cuBLAS");
    d->cublas = nullptr;
    return nullptr;
  }
  return d;
}

CUstream asStream(void *stream) { return static_cast<CUstream>(stream); }
CUdeviceptr asDevice(const void *ptr) { return reinterpret_cast<CUdeviceptr>(ptr); }

CUevent profileEvent(Driver &d) {
  Profile &p = state().profile;
  CUevent event = nullptr;
  if (!p.spare.empty()) {
    event = p.spare.back();
    p.spare.pop_back();
  } else if (!check(d.cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate")) {
    return nullptr;
  }
  check(d.cuEventRecord(event, d.computeStream), "cuEventRecord");
  return event;
}

/// Brackets one launch with events on the compute stream while profiling;
/// `name` is called only then.
template <typename Name, typename Launch>
void timed(Driver &d, Name &&name, Launch &&launch) {
  Profile &p = state().profile;
  if (!p.on) {
    launch();
    return;
  }
  Profile::Launch record{name(), profileEvent(d), nullptr};
  launch();
  record.end = profileEvent(d);
  p.launches.push_back(std::move(record));
}

} // namespace

//===----------------------------------------------------------------------===//
// Device and errors
//===----------------------------------------------------------------------===//

extern "C" int cotangent_cuda_init(void) { return driver() ? 0 : 1; }

extern "C" const char *cotangent_cuda_last_error(void) {
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  return state().error.c_str();
}

extern "C" void cotangent_cuda_report_error(const char *message) { setError(message); }

extern "C" void cotangent_cuda_clear_error(void) {
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  state().error.clear();
}

extern "C" int cotangent_cuda_device_count(void) {
  Driver *d = driver();
  int count = 0;
  if (d)
    d->cuDeviceGetCount(&count);
  return count;
}

extern "C" int cotangent_cuda_compute_capability(void) {
  Driver *d = driver();
  return d ? d->computeCapability : -1;
}

extern "C" int64_t cotangent_cuda_multiprocessors(void) {
  Driver *d = driver();
  return d ? d->multiprocessors : 0;
}

extern "C" int cotangent_cuda_synchronize(void) {
  Driver *d = driver();
  return d && check(d->cuCtxSynchronize(), "cuCtxSynchronize") ? 0 : 1;
}

extern "C" void cotangent_cuda_set_tf32(int enabled) {
  Driver *d = driver();
  if (!d)
    return;
  d->tf32 = enabled != 0;
  if (d->cublas &&
      d->cublasSetMathMode(d->cublas, d->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                              : CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS)
    setError("cublasSetMathMode failed");
}

//===----------------------------------------------------------------------===//
// Host <-> device copies
//===----------------------------------------------------------------------===//

namespace {

/// A copy in stream order on the compute stream, waited for: to the device
/// from pageable memory (read when this returns), or to the host after the
/// work that produced it.
int copyAndWait(void *dst, const void *src, uint64_t bytes) {
  Driver *d = driver();
  return d && check(d->cuMemcpyAsync(asDevice(dst), asDevice(src), bytes, d->computeStream),
                    "cuMemcpyAsync") &&
                 check(d->cuStreamSynchronize(d->computeStream), "cuStreamSynchronize")
             ? 0
             : 1;
}

} // namespace

extern "C" int cotangent_cuda_copy_to_device(void *dst, const void *src, uint64_t bytes) {
  return copyAndWait(dst, src, bytes);
}

extern "C" int cotangent_cuda_copy_to_host(void *dst, const void *src, uint64_t bytes) {
  return copyAndWait(dst, src, bytes);
}

extern "C" void *cotangent_cuda_device_global(const void *host, uint64_t bytes) {
  Driver *d = driver();
  if (!d)
    return nullptr;
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  auto [it, inserted] = d->globals.try_emplace(host, 0);
  if (inserted && !(check(d->cuMemAlloc(&it->second, std::max<uint64_t>(bytes, 1)), "cuMemAlloc") &&
                    cotangent_cuda_copy_to_device(reinterpret_cast<void *>(it->second), host,
                                                  bytes) == 0)) {
    d->globals.erase(it);
    return nullptr;
  }
  return reinterpret_cast<void *>(it->second);
}

extern "C" uint64_t cotangent_cuda_read_scalar(uint64_t address, uint64_t bytes) {
  // Through a small pinned block, allocated once: a DMA the host waits for,
  // not a staged copy to pageable memory.
  static void *scratch = nullptr;
  Driver *d = driver();
  if (d && !scratch)
    check(d->cuMemHostAlloc(&scratch, sizeof(uint64_t), 0), "cuMemHostAlloc");
  uint64_t value = 0;
  if (bytes > sizeof(value) || !scratch ||
      cotangent_cuda_copy_to_host(scratch, reinterpret_cast<const void *>(address), bytes) != 0) {
    setError("cotangent_cuda_read_scalar: reading " + std::to_string(bytes) +
             " bytes of device memory failed");
    return 0;
  }
  std::memcpy(&value, scratch, bytes);
  return value; // little endian: the low bytes
}

//===----------------------------------------------------------------------===//
// Counted allocations
//===----------------------------------------------------------------------===//

extern "C" void *cotangent_cuda_alloc(uint64_t bytes) {
  Driver *d = driver();
  if (!d)
    return nullptr;
  CUdeviceptr ptr = 0;
  if (!check(d->cuMemAllocAsync(&ptr, std::max<uint64_t>(bytes, 1), d->computeStream),
             "cuMemAllocAsync"))
    return nullptr;
  void *p = reinterpret_cast<void *>(ptr);
  state().device.allocated(p, static_cast<int64_t>(bytes));
  if (state().capturing)
    state().capturedAllocs[p] = static_cast<int64_t>(bytes);
  return p;
}

extern "C" void cotangent_cuda_free(void *ptr) {
  if (!ptr)
    return;
  // Compiled code frees its pinned buffers (gpu.alloc host_shared) like any.
  if (cotangent_cuda_is_pinned(ptr))
    return cotangent_cuda_host_free(ptr);
  if (!state().device.freed(ptr)) {
    setError("cotangent_cuda_free: not a block of cotangent_cuda_alloc");
    return;
  }
  if (state().capturing)
    state().capturedAllocs.erase(ptr);
  if (Driver *d = driver())
    check(d->cuMemFreeAsync(asDevice(ptr), d->computeStream), "cuMemFreeAsync");
}

extern "C" void *cotangent_cuda_array_alloc(uint64_t bytes) {
  Driver *d = driver();
  CUdeviceptr ptr = 0;
  if (!d || !check(d->cuMemAllocAsync(&ptr, std::max<uint64_t>(bytes, 1), d->computeStream),
                   "cuMemAllocAsync"))
    return nullptr;
  return reinterpret_cast<void *>(ptr);
}

extern "C" void cotangent_cuda_array_free(void *ptr) {
  if (Driver *d = driver(); d && ptr)
    check(d->cuMemFreeAsync(asDevice(ptr), d->computeStream), "cuMemFreeAsync");
}

extern "C" int64_t cotangent_cuda_block_size(void *ptr) { return state().device.sizeOf(ptr); }

extern "C" int64_t cotangent_cuda_live_bytes(void) { return state().device.live(); }

extern "C" int64_t cotangent_cuda_peak_bytes(void) { return state().device.peak(); }

extern "C" void cotangent_cuda_reset_peak(void) { state().device.resetPeak(); }

cotangent::host::ByteCounter &cotangent::cuda::deviceByteCounter() { return state().device; }

//===----------------------------------------------------------------------===//
// CUDA graphs
//===----------------------------------------------------------------------===//

extern "C" int cotangent_cuda_capture_begin(void) {
  Driver *d = driver();
  if (!d || !check(d->cuStreamBeginCapture(d->computeStream, CU_STREAM_CAPTURE_MODE_RELAXED),
                   "cuStreamBeginCapture"))
    return 1;
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  state().capturing = true;
  state().capturedAllocs.clear();
  state().capturedPinned.clear();
  return 0;
}

extern "C" void *cotangent_cuda_capture_end(void) {
  Driver *d = driver();
  if (!d)
    return nullptr;
  auto graph = std::make_unique<Graph>();
  bool ended = check(d->cuStreamEndCapture(d->computeStream, &graph->graph), "cuStreamEndCapture");
  std::map<void *, int64_t> leftovers;
  {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    state().capturing = false;
    leftovers.swap(state().capturedAllocs);
    graph->pinned.swap(state().capturedPinned);
  }
  // What the capture allocated and kept is not memory yet: each launch
  // allocates it (at the same addresses) and counts it then.
  for (const auto &[block, bytes] : leftovers) {
    state().device.freed(block);
    graph->leftovers.emplace_back(block, bytes);
  }
  if (!ended || !check(d->cuGraphInstantiate(&graph->exec, graph->graph, 0), "cuGraphInstantiate")) {
    if (graph->graph)
      d->cuGraphDestroy(graph->graph);
    return nullptr;
  }
  return graph.release();
}

extern "C" int cotangent_cuda_graph_launch(void *handle) {
  Driver *d = driver();
  auto *graph = static_cast<Graph *>(handle);
  if (!d || !graph || !check(d->cuGraphLaunch(graph->exec, d->computeStream), "cuGraphLaunch"))
    return 1;
  for (const auto &[block, bytes] : graph->leftovers)
    state().device.allocated(block, bytes);
  return 0;
}

extern "C" void cotangent_cuda_graph_destroy(void *handle) {
  Driver *d = driver();
  auto *graph = static_cast<Graph *>(handle);
  if (!graph)
    return;
  if (d) {
    check(d->cuGraphExecDestroy(graph->exec), "cuGraphExecDestroy");
    check(d->cuGraphDestroy(graph->graph), "cuGraphDestroy");
  }
  {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    for (void *p : graph->pinned)
      if (state().graphPinned.erase(p) && state().pinned.sizeOf(p) < 0)
        state().pinnedCache.emplace(state().pinnedSizes[p], p);
  }
  delete graph;
}

//===----------------------------------------------------------------------===//
// Offload
//===----------------------------------------------------------------------===//

extern "C" void *cotangent_cuda_host_alloc(uint64_t bytes) {
  Driver *d = driver();
  if (!d)
    return nullptr;
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  State &st = state();
  auto size = static_cast<int64_t>(bytes);
  void *p = nullptr;
  // A cached block of this size, unless a recorded step still uses it.
  for (auto [it, end] = st.pinnedCache.equal_range(size); it != end; ++it)
    if (!st.graphPinned.count(it->second)) {
      p = it->second;
      st.pinnedCache.erase(it);
      break;
    }
  if (!p && !check(d->cuMemHostAlloc(&p, std::max<uint64_t>(bytes, 1), 0), "cuMemHostAlloc"))
    return nullptr;
  st.pinned.allocated(p, size);
  st.pinnedSizes[p] = size;
  if (st.capturing) {
    st.capturedPinned.push_back(p);
    st.graphPinned.insert(p);
  }
  return p;
}

extern "C" void cotangent_cuda_host_free(void *ptr) {
  if (!ptr)
    return;
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  State &st = state();
  if (!st.pinned.freed(ptr)) {
    setError("cotangent_cuda_host_free: not a block of cotangent_cuda_host_alloc");
    return;
  }
  if (st.capturing && st.graphPinned.insert(ptr).second)
    st.capturedPinned.push_back(ptr);
  // Kept for reuse; a block a recorded step uses goes back when its graph does.
  if (!st.graphPinned.count(ptr))
    st.pinnedCache.emplace(st.pinnedSizes[ptr], ptr);
}

extern "C" int cotangent_cuda_is_pinned(const void *ptr) {
  return state().pinned.sizeOf(const_cast<void *>(ptr)) >= 0;
}

extern "C" int64_t cotangent_cuda_host_bytes(void) { return state().pinned.live(); }

namespace {

/// `to` waits for the work `from` has been given so far.
bool order(Driver &d, CUstream from, CUstream to) {
  CUevent event = nullptr;
  bool ok = check(d.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate") &&
            check(d.cuEventRecord(event, from), "cuEventRecord") &&
            check(d.cuStreamWaitEvent(to, event, 0), "cuStreamWaitEvent");
  if (event)
    check(d.cuEventDestroy(event), "cuEventDestroy"); // released once the wait is done
  return ok;
}

} // namespace

extern "C" int cotangent_cuda_offload(void *dst, const void *src, uint64_t bytes) {
  // On the offload stream after the compute stream's work so far, which
  // waits for the copy in turn: a later free of `src` sees it done.
  Driver *d = driver();
  return d && order(*d, d->computeStream, d->offloadStream) &&
                 check(d->cuMemcpyAsync(asDevice(dst), asDevice(src), bytes, d->offloadStream),
                       "cuMemcpyAsync") &&
                 order(*d, d->offloadStream, d->computeStream)
             ? 0
             : 1;
}

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

namespace {

/// cuBLAS is column-major: a matrix with its rows contiguous is, to it, the
/// transpose stored column-major (op N in the C^T = B^T A^T formulation);
/// one with its columns contiguous is op T.
cublasOperation_t operation(const cotangent::host::MatrixLayout &layout) {
  return layout.columnMajor ? CUBLAS_OP_T : CUBLAS_OP_N;
}

/// C = A B on descriptors: operands of type `In`, product of `T` (in a
/// low-float GEMM, `In` is the 16-bit storage of bf16 or f16).
template <typename T, typename In = T, typename Gemm>
void batchMatmul(CotangentMemRef3 *a, CotangentMemRef3 *b, CotangentMemRef3 *c, Gemm gemm) {
  Driver *d = blas();
  if (!d)
    return;
  cotangent::host::BatchMatmulShape s(*a, *b, *c);
  if (!s.blasCompatible()) {
    setError("cuBLAS matmul: unsupported operand strides");
    return;
  }
  const In *pa = static_cast<const In *>(a->aligned) + a->offset;
  const In *pb = static_cast<const In *>(b->aligned) + b->offset;
  T *pc = static_cast<T *>(c->aligned) + c->offset;
  T alpha = 1, beta = 0;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  auto name = [&] {
    return "cublas gemm " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
           std::to_string(s.k) + " x " + std::to_string(s.batch);
  };
  // Row-major C = A B is column-major C^T = B^T A^T.
  timed(*d, name, [&] {
    status = gemm(d->cublas, operation(s.b), operation(s.a), static_cast<int>(s.n),
                  static_cast<int>(s.m), static_cast<int>(s.k), &alpha, pb,
                  static_cast<int>(s.b.ld), b->strides[0], pa, static_cast<int>(s.a.ld),
                  a->strides[0], &beta, pc, static_cast<int>(s.c.ld), c->strides[0],
                  static_cast<int>(s.batch));
  });
  if (status != CUBLAS_STATUS_SUCCESS)
    setError("cuBLAS gemm failed with status " + std::to_string(static_cast<int>(status)));
}

} // namespace

extern "C" void cotangent_cuda_batch_matmul_f32(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                CotangentMemRef3 *c) {
  Driver *d = blas();
  if (d)
    batchMatmul<float>(a, b, c, d->cublasSgemmStridedBatched);
}

extern "C" void cotangent_cuda_batch_matmul_f64(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                CotangentMemRef3 *c) {
  Driver *d = blas();
  if (d)
    batchMatmul<double>(a, b, c, d->cublasDgemmStridedBatched);
}

namespace {

/// bf16 or f16 operands (`type`) into an f32 product, accumulated in f32:
/// cuBLAS's GemmEx (tensor cores), rounding once where the product is
/// rounded back, as the CPU computes it.
void lowFloatBatchMatmul(CotangentMemRef3 *a, CotangentMemRef3 *b, CotangentMemRef3 *c,
                         cudaDataType type) {
  Driver *d = blas();
  if (!d)
    return;
  batchMatmul<float, uint16_t>(
      a, b, c,
      [&](cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
          const float *alpha, const uint16_t *pa, int lda, long long strideA, const uint16_t *pb,
          int ldb, long long strideB, const float *beta, float *pc, int ldc, long long strideC,
          int batch) {
        return d->cublasGemmStridedBatchedEx(handle, ta, tb, m, n, k, alpha, pa, type, lda,
                                             strideA, pb, type, ldb, strideB, beta, pc,
                                             CUDA_R_32F, ldc, strideC, batch, CUBLAS_COMPUTE_32F,
                                             CUBLAS_GEMM_DEFAULT);
      });
}

} // namespace

extern "C" void cotangent_cuda_batch_matmul_bf16(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                 CotangentMemRef3 *c) {
  lowFloatBatchMatmul(a, b, c, CUDA_R_16BF);
}

extern "C" void cotangent_cuda_batch_matmul_f16(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                CotangentMemRef3 *c) {
  lowFloatBatchMatmul(a, b, c, CUDA_R_16F);
}

//===----------------------------------------------------------------------===//
// The GPU runtime wrappers' API
//===----------------------------------------------------------------------===//

extern "C" void *cotangent_mgpuModuleLoad(void *data, size_t /*size*/) {
  Driver *d = driver();
  CUmodule module = nullptr;
  if (d)
    check(d->cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

extern "C" void *cotangent_mgpuModuleLoadJIT(void *data, int optLevel) {
  Driver *d = driver();
  CUmodule module = nullptr;
  if (!d)
    return nullptr;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  check(d->cuModuleLoadDataEx(&module, data, 1, options, values), "cuModuleLoadDataEx");
  return module;
}

extern "C" void cotangent_mgpuModuleUnload(void *module) {
  Driver *d = driver();
  if (!d || !module)
    return;
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  for (auto it = d->functions.begin(); it != d->functions.end();)
    if (it->first.first == module) {
      d->functionNames.erase(it->second); // a later module may get the same handle
      it = d->functions.erase(it);
    } else {
      ++it;
    }
  d->moduleOrdinals.erase(module);
  check(d->cuModuleUnload(static_cast<CUmodule>(module)), "cuModuleUnload");
}

extern "C" void *cotangent_mgpuModuleGetFunction(void *module, const char *name) {
  Driver *d = driver();
  CUfunction function = nullptr;
  if (!d)
    return nullptr;
  if (!module) {
    setError(std::string("kernel ") + name + ": its module did not load");
    return nullptr;
  }
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  auto [it, inserted] = d->functions.try_emplace({module, name}, nullptr);
  if (inserted &&
      !check(d->cuModuleGetFunction(&it->second, static_cast<CUmodule>(module), name),
             "cuModuleGetFunction")) {
    d->functions.erase(it);
    return nullptr;
  }
  function = it->second;
  if (inserted) {
    // kernel, kernel_0, kernel_1, ...: as gpu-kernel-outlining names modules.
    auto [ordinal, fresh] = d->moduleOrdinals[module].try_emplace(name, 0);
    if (fresh)
      ordinal->second = d->modulesPerFunction[name]++;
    d->functionNames[function] =
        ordinal->second ? std::string(name) + "_" + std::to_string(ordinal->second - 1) : name;
  }
  return function;
}

extern "C" void cotangent_mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                           intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                                           intptr_t blockZ, int32_t smem, void *stream,
                                           void **params, void **extra, size_t /*count*/) {
  Driver *d = driver();
  if (!d || !function) {
    setError("kernel launch skipped: no kernel function");
    return;
  }
  auto name = [&] {
    std::lock_guard<std::recursive_mutex> lock(state().mutex);
    auto shape = [](intptr_t x, intptr_t y, intptr_t z) {
      return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
    };
    return d->functionNames[static_cast<CUfunction>(function)] + " grid " +
           shape(gridX, gridY, gridZ) + " block " + shape(blockX, blockY, blockZ);
  };
  timed(*d, name, [&] {
    check(d->cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY, gridZ, blockX,
                            blockY, blockZ, smem, asStream(stream), params, extra),
          "cuLaunchKernel");
  });
}

// Each launch of compiled code asks for a stream, launches on it, waits and
// destroys it (that is how the embedded launch of a synchronous
// gpu.launch_func reads). Here all of them are the compute stream and the
// wait is left out: the host reads device memory only through the copies
// above, which wait themselves, so launches stay asynchronous and ordered.
extern "C" void *cotangent_mgpuStreamCreate(void) {
  Driver *d = driver();
  return d ? d->computeStream : nullptr;
}

extern "C" void *cotangent_cuda_stream_create(void) {
  Driver *d = driver();
  CUstream stream = nullptr;
  if (d && !check(d->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
    stream = nullptr;
  return stream;
}

extern "C" void cotangent_mgpuStreamDestroy(void *stream) {
  Driver *d = driver();
  if (d && stream && asStream(stream) != d->computeStream)
    check(d->cuStreamDestroy(asStream(stream)), "cuStreamDestroy");
}

extern "C" void cotangent_mgpuStreamSynchronize(void *stream) {
  Driver *d = driver();
  if (d && asStream(stream) != d->computeStream)
    check(d->cuStreamSynchronize(asStream(stream)), "cuStreamSynchronize");
}

extern "C" void cotangent_mgpuStreamWaitEvent(void *stream, void *event) {
  Driver *d = driver();
  if (d)
    check(d->cuStreamWaitEvent(asStream(stream), static_cast<CUevent>(event), 0),
          "cuStreamWaitEvent");
}

extern "C" void *cotangent_mgpuEventCreate(void) {
  Driver *d = driver();
  CUevent event = nullptr;
  if (d)
    check(d->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

extern "C" void cotangent_mgpuEventDestroy(void *event) {
  Driver *d = driver();
  if (d && event)
    check(d->cuEventDestroy(static_cast<CUevent>(event)), "cuEventDestroy");
}

extern "C" void cotangent_mgpuEventSynchronize(void *event) {
  Driver *d = driver();
  if (d)
    check(d->cuEventSynchronize(static_cast<CUevent>(event)), "cuEventSynchronize");
}

extern "C" void cotangent_mgpuEventRecord(void *event, void *stream) {
  Driver *d = driver();
  if (d)
    check(d->cuEventRecord(static_cast<CUevent>(event), asStream(stream)), "cuEventRecord");
}

extern "C" void *cotangent_mgpuMemAlloc(uint64_t bytes, void * /*stream*/, int8_t shared) {
  // host_shared: pinned host memory (an offloaded residual's copy), not
  // counted as the device's; otherwise counted and stream-ordered on the
  // compute stream, like every block.
  return shared ? cotangent_cuda_host_alloc(bytes) : cotangent_cuda_alloc(bytes);
}

extern "C" void cotangent_mgpuMemFree(void *ptr, void * /*stream*/) { cotangent_cuda_free(ptr); }

extern "C" void cotangent_mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  // Into pinned memory from the device: an offload, on the offload stream.
  if (cotangent_cuda_is_pinned(dst) && !cotangent_cuda_is_pinned(src)) {
    cotangent_cuda_offload(dst, src, bytes);
    return;
  }
  Driver *d = driver();
  if (d)
    check(d->cuMemcpyAsync(asDevice(dst), asDevice(src), bytes, asStream(stream)),
          "cuMemcpyAsync");
}

extern "C" void cotangent_mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  Driver *d = driver();
  if (d)
    check(d->cuMemsetD32Async(asDevice(dst), value, count, asStream(stream)), "cuMemsetD32Async");
}

extern "C" void cotangent_mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  Driver *d = driver();
  if (d)
    check(d->cuMemsetD16Async(asDevice(dst), value, count, asStream(stream)), "cuMemsetD16Async");
}

extern "C" void cotangent_mgpuSetDefaultDevice(int32_t device) {
  if (device != 0)
    setError("only device 0 is supported");
}

//===----------------------------------------------------------------------===//
// Kernel profile
//===----------------------------------------------------------------------===//

bool cotangent::cuda::beginKernelProfile() {
  Driver *d = driver();
  if (!d)
    return false;
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  if (state().capturing) {
    setError("kernel profile: a CUDA graph is being recorded; profile eager steps");
    return false;
  }
  state().profile.on = true;
  return true;
}

std::vector<cotangent::cuda::KernelTime> cotangent::cuda::endKernelProfile() {
  std::vector<KernelTime> times;
  Driver *d = driver();
  if (!d)
    return times;
  std::lock_guard<std::recursive_mutex> lock(state().mutex);
  Profile &p = state().profile;
  p.on = false;
  check(d->cuStreamSynchronize(d->computeStream), "cuStreamSynchronize");
  std::map<std::string, KernelTime> byName;
  for (Profile::Launch &launch : p.launches) {
    float ms = 0;
    if (launch.start && launch.end &&
        check(d->cuEventElapsedTime(&ms, launch.start, launch.end), "cuEventElapsedTime")) {
      KernelTime &t = byName[launch.name];
      t.name = launch.name;
      ++t.launches;
      t.microseconds += 1e3 * ms;
    }
    for (CUevent event : {launch.start, launch.end})
      if (event)
        p.spare.push_back(event);
  }
  p.launches.clear();
  for (auto &[name, time] : byName)
    times.push_back(std::move(time));
  std::ranges::sort(times, [](const KernelTime &a, const KernelTime &b) {
    return a.microseconds > b.microseconds;
  });
  return times;
}
