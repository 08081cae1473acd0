//===- OneDnnMatmul.cpp - f32 and bf16 batched matmuls through oneDNN -----===//
//
// oneDNN's C API, resolved from libdnnl.so.2 at first use; each operand
// layout gets one matmul primitive and three memory objects whose data
// handles are set per call.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/OneDnnMatmul.h"

#include "runtime/cpu/MatmulChoice.h"
#include "runtime/cpu/MemoryHooks.h"

#include <oneapi/dnnl/dnnl.h>

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

extern "C" {
// OpenBLAS's version string (its cblas.h declares it only in newer releases).
char *openblas_get_config(void);
}

using namespace cotangent;
using cpu::MatmulLibrary;

namespace {

/// The functions of oneDNN's C API this file calls, from the loaded library.
struct Api {
  decltype(&dnnl_engine_create) engineCreate;
  decltype(&dnnl_stream_create) streamCreate;
  decltype(&dnnl_memory_desc_init_by_strides) memoryDescInit;
  decltype(&dnnl_matmul_desc_init) matmulDescInit;
  decltype(&dnnl_primitive_desc_create) primitiveDescCreate;
  decltype(&dnnl_primitive_desc_query) primitiveDescQuery;
  decltype(&dnnl_primitive_desc_destroy) primitiveDescDestroy;
  decltype(&dnnl_primitive_create) primitiveCreate;
  decltype(&dnnl_memory_create) memoryCreate;
  decltype(&dnnl_memory_set_data_handle) memorySetDataHandle;
  decltype(&dnnl_primitive_execute) primitiveExecute;
  decltype(&dnnl_stream_wait) streamWait;
  decltype(&dnnl_version) version;
};

/// One layout's primitive and the memory objects it reads and writes.
struct Primitive {
  dnnl_primitive_t primitive = nullptr; ///< null: oneDNN does not take this layout
  dnnl_memory_t src = nullptr, weights = nullptr, dst = nullptr;
};

/// The operands' data type, the batch, the problem's sizes and each
/// operand's three strides.
using LayoutKey = std::array<int64_t, 14>;

class OneDnn {
public:
  static OneDnn &get() {
    static OneDnn instance;
    return instance;
  }

  bool loaded() const { return engine != nullptr; }
  const std::string &whyNot() const { return failure; }
  std::string version() const {
    const dnnl_version_t *v = api.version();
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch);
  }

  /// C = A * B with A and B of `operands` (f32 or bf16) and C of f32.
  bool run(const CotangentMemRef3 &a, const CotangentMemRef3 &b, const CotangentMemRef3 &c,
           const host::BatchMatmulShape &s, dnnl_data_type_t operands) {
    LayoutKey key{operands,     s.batch,      s.m,          s.n,          s.k,
                  a.strides[0], a.strides[1], a.strides[2], b.strides[0], b.strides[1],
                  b.strides[2], c.strides[0], c.strides[1], c.strides[2]};
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, fresh] = primitives.try_emplace(key);
    if (fresh)
      it->second = create(a, b, c, s, operands);
    const Primitive &p = it->second;
    if (!p.primitive)
      return false;
    const int64_t width = operands == dnnl_bf16 ? 2 : 4;
    api.memorySetDataHandle(p.src, static_cast<char *>(a.aligned) + a.offset * width);
    api.memorySetDataHandle(p.weights, static_cast<char *>(b.aligned) + b.offset * width);
    api.memorySetDataHandle(p.dst, static_cast<float *>(c.aligned) + c.offset);
    std::array<dnnl_exec_arg_t, 3> args{{{DNNL_ARG_SRC, p.src},
                                         {DNNL_ARG_WEIGHTS, p.weights},
                                         {DNNL_ARG_DST, p.dst}}};
    // Created for exactly this layout, it fails only for want of scratch
    // memory; then OpenBLAS computes the whole product again.
    return api.primitiveExecute(p.primitive, stream, static_cast<int>(args.size()),
                                args.data()) == dnnl_success &&
           api.streamWait(stream) == dnnl_success;
  }

private:
  OneDnn() {
    handle = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      failure = "libdnnl.so.2 not found";
      return;
    }
    bool all = true;
    auto resolve = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
      all = all && fn;
    };
    resolve(api.engineCreate, "dnnl_engine_create");
    resolve(api.streamCreate, "dnnl_stream_create");
    resolve(api.memoryDescInit, "dnnl_memory_desc_init_by_strides");
    resolve(api.matmulDescInit, "dnnl_matmul_desc_init");
    resolve(api.primitiveDescCreate, "dnnl_primitive_desc_create");
    resolve(api.primitiveDescQuery, "dnnl_primitive_desc_query");
    resolve(api.primitiveDescDestroy, "dnnl_primitive_desc_destroy");
    resolve(api.primitiveCreate, "dnnl_primitive_create");
    resolve(api.memoryCreate, "dnnl_memory_create");
    resolve(api.memorySetDataHandle, "dnnl_memory_set_data_handle");
    resolve(api.primitiveExecute, "dnnl_primitive_execute");
    resolve(api.streamWait, "dnnl_stream_wait");
    resolve(api.version, "dnnl_version");
    if (!all) {
      failure = "libdnnl.so.2 lacks the oneDNN 2 C API";
      return;
    }
    dnnl_engine_t e = nullptr;
    if (api.engineCreate(&e, dnnl_cpu, 0) != dnnl_success ||
        api.streamCreate(&stream, e, dnnl_stream_default_flags) != dnnl_success) {
      failure = "oneDNN has no CPU engine";
      return;
    }
    engine = e;
  }

  /// A matrix's descriptor: row- or column-major with its leading dimension,
  /// behind the batch (dropped for one product; size 1 for a broadcast).
  bool describe(dnnl_memory_desc_t &desc, int64_t batch, int64_t batchStride, int64_t rows,
                int64_t cols, const host::MatrixLayout &layout, dnnl_data_type_t type) {
    dnnl_dims_t dims{}, strides{};
    int64_t rowStride = layout.columnMajor ? 1 : layout.ld;
    int64_t colStride = layout.columnMajor ? layout.ld : 1;
    int ndims = 2;
    if (batch > 1) {
      bool broadcast = batchStride == 0;
      dims[0] = broadcast ? 1 : batch;
      strides[0] = broadcast ? (layout.columnMajor ? layout.ld * cols : layout.ld * rows)
                             : batchStride;
      ndims = 3;
    }
    dims[ndims - 2] = rows;
    dims[ndims - 1] = cols;
    strides[ndims - 2] = rowStride;
    strides[ndims - 1] = colStride;
    return api.memoryDescInit(&desc, ndims, dims, type, strides) == dnnl_success;
  }

  Primitive create(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                   const CotangentMemRef3 &c, const host::BatchMatmulShape &s,
                   dnnl_data_type_t operands) {
    dnnl_memory_desc_t src, weights, dst;
    dnnl_matmul_desc_t op;
    if (!describe(src, s.batch, a.strides[0], s.m, s.k, s.a, operands) ||
        !describe(weights, s.batch, b.strides[0], s.k, s.n, s.b, operands) ||
        !describe(dst, s.batch, c.strides[0], s.m, s.n, s.c, dnnl_f32) ||
        api.matmulDescInit(&op, &src, &weights, nullptr, &dst) != dnnl_success)
      return {};
    dnnl_primitive_desc_t pd = nullptr;
    if (api.primitiveDescCreate(&pd, &op, nullptr, engine, nullptr) != dnnl_success)
      return {};
    // Reference kernels are loops slower than OpenBLAS: leave such layouts.
    const char *impl = nullptr;
    bool reference = api.primitiveDescQuery(pd, dnnl_query_impl_info_str, 0, &impl) !=
                         dnnl_success ||
                     !impl || std::strncmp(impl, "ref", 3) == 0;
    Primitive p;
    if (reference || api.primitiveCreate(&p.primitive, pd) != dnnl_success) {
      api.primitiveDescDestroy(pd);
      return {};
    }
    api.primitiveDescDestroy(pd);
    if (api.memoryCreate(&p.src, &src, engine, DNNL_MEMORY_NONE) != dnnl_success ||
        api.memoryCreate(&p.weights, &weights, engine, DNNL_MEMORY_NONE) != dnnl_success ||
        api.memoryCreate(&p.dst, &dst, engine, DNNL_MEMORY_NONE) != dnnl_success)
      return {};
    return p;
  }

  void *handle = nullptr;
  Api api{};
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  std::string failure;
  std::mutex mutex;
  std::map<LayoutKey, Primitive> primitives;
};

std::optional<MatmulLibrary> &chosenLibrary() {
  static std::optional<MatmulLibrary> library;
  return library;
}

} // namespace

void cpu::configureMatmul(std::string *error) {
  static std::once_flag once;
  static std::string envError;
  std::call_once(once, [] {
    const char *env = std::getenv("COTANGENT_MATMUL");
    if (!env || chosenLibrary())
      return;
    if (std::strcmp(env, "measured") == 0)
      chosenLibrary() = MatmulLibrary::Measured;
    else if (std::strcmp(env, "onednn") == 0)
      chosenLibrary() = MatmulLibrary::OneDnn;
    else if (std::strcmp(env, "openblas") == 0)
      chosenLibrary() = MatmulLibrary::OpenBlas;
    else
      envError = std::string("COTANGENT_MATMUL='") + env +
                 "' is not 'measured', 'onednn' or 'openblas'; measuring which is faster";
  });
  if (error)
    *error = envError;
}

cpu::MatmulLibrary cpu::matmulLibrary() {
  configureMatmul();
  return chosenLibrary().value_or(MatmulLibrary::Measured);
}

void cpu::setMatmulLibrary(MatmulLibrary library) {
  configureMatmul();
  chosenLibrary() = library;
}

std::string cpu::matmulLibraryName() {
  std::string openBlas = "OpenBLAS";
  if (const char *config = openblas_get_config()) // "OpenBLAS 0.3.21 DYNAMIC_ARCH ..."
    if (std::strncmp(config, "OpenBLAS ", 9) == 0)
      openBlas = std::string(config, std::strcspn(config + 9, " ") + 9);
  if (matmulLibrary() == MatmulLibrary::OpenBlas)
    return openBlas + " (COTANGENT_MATMUL=openblas)";
  OneDnn &dnnl = OneDnn::get();
  if (!dnnl.loaded())
    return openBlas + " (oneDNN: " + dnnl.whyNot() + ")";
  if (matmulLibrary() == MatmulLibrary::OneDnn)
    return "oneDNN " + dnnl.version() + " (COTANGENT_MATMUL=onednn; f64 and products under " +
           "2^18 multiply-adds: " + openBlas + ")";
  std::string cache = matmulCachePath();
  return "oneDNN " + dnnl.version() + " or " + openBlas +
         ", the faster on this machine as measured (" +
         (cache.empty() ? std::string("per process") : cache) +
         "; f64 and products under 2^18 multiply-adds: " + openBlas + ")";
}

bool cpu::oneDnnSharesLoopThreads() {
  if (!OneDnn::get().loaded())
    return false;
  // The definition oneDNN's reference (GOMP_parallel, version GOMP_4.0)
  // binds to: the first in the global scope, before libdnnl's own libgomp.
  void *entry = dlvsym(RTLD_DEFAULT, "GOMP_parallel", "GOMP_4.0");
  Dl_info info;
  return entry && dladdr(entry, &info) && info.dli_fname &&
         std::strstr(info.dli_fname, "libomp") != nullptr;
}

/// Whether oneDNN may take the product at all (it may still refuse a
/// layout it would run on reference kernels).
static bool oneDnnMayTake(const host::BatchMatmulShape &s) {
  return s.blasCompatible() && s.k > 0 && s.m * s.n * s.k >= cpu::kMinOneDnnWork &&
         cpu::matmulLibrary() != MatmulLibrary::OpenBlas && OneDnn::get().loaded();
}

/// The product on oneDNN, if it takes it (see oneDnnBatchMatmulF32).
static bool runOnOneDnn(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                        const CotangentMemRef3 &c, dnnl_data_type_t operands) {
  host::BatchMatmulShape s(a, b, c);
  return oneDnnMayTake(s) && OneDnn::get().run(a, b, c, s, operands);
}

bool cpu::oneDnnBatchMatmulF32(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                               const CotangentMemRef3 &c) {
  return runOnOneDnn(a, b, c, dnnl_f32);
}

bool cpu::oneDnnBatchMatmulBf16(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                                const CotangentMemRef3 &c) {
  return runOnOneDnn(a, b, c, dnnl_bf16);
}

/// One product on `library`, for MatmulChoice's calibration.
static bool runOn(MatmulLibrary library, const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                  const CotangentMemRef3 &c) {
  if (library == MatmulLibrary::OneDnn)
    return runOnOneDnn(a, b, c, dnnl_f32);
  cpu::openBlasBatchMatmulF32(a, b, c);
  return true;
}

void cpu::batchMatmulF32(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                         const CotangentMemRef3 &c) {
  MatmulLibrary library = matmulLibrary();
  if (library == MatmulLibrary::Measured && oneDnnMayTake(host::BatchMatmulShape(a, b, c)))
    library = measuredLibrary(runOn);
  if (library == MatmulLibrary::OpenBlas || !runOnOneDnn(a, b, c, dnnl_f32))
    openBlasBatchMatmulF32(a, b, c);
}
