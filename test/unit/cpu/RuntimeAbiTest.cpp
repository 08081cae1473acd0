// The runtime ABI (runtime/core/RuntimeAbi.def) is the whole of what CPU
// code calls of Cotangent's runtime: the CPU runtime binds exactly the
// entries the CPU is called on, every call of a lowered module into
// Cotangent (a `cotangent` or `_mlir_` name) is one of them, and the AOT
// header declares each one the object calls with the .def's prototype.
#include "test/unit/cpu/Compare.h"

#include "runtime/core/RuntimeAbi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>

using namespace cotangent::test;
namespace abi = cotangent::core::abi;
namespace cpu = cotangent::cpu;

namespace {

/// Products of three float types, fused attention and a collective.
constexpr const char *kModule = R"mlir(
func.func @calls(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x8xf64>,
                 %d: tensor<8x4xf64>, %e: tensor<4x8xbf16>, %f: tensor<8x4xbf16>,
                 %q: tensor<1x8x2x4xf32>)
    -> (tensor<4x4xf64>, tensor<4x4xbf16>, tensor<1x8x2x4xf32>, tensor<4x4xf32>) {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %1 = jx.dot_general %c, %d, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xf64>, tensor<8x4xf64> -> tensor<4x4xf64>
  %2 = jx.dot_general %e, %f, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xbf16>, tensor<8x4xbf16> -> tensor<4x4xbf16>
  %o, %lse = jx.dot_product_attention %q, %q, %q, scale = 0.5 causal
      : tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>
  %3 = jx.psum %0, axis = "data" : tensor<4x4xf32>
  return %1, %2, %o, %3 : tensor<4x4xf64>, tensor<4x4xbf16>, tensor<1x8x2x4xf32>, tensor<4x4xf32>
}
)mlir";

std::set<abi::Entry> entriesOn(abi::Targets target) {
  std::set<abi::Entry> entries;
  for (const abi::EntryInfo &e : abi::kEntries)
    if (e.targets & target)
      entries.insert(e.id);
  return entries;
}

} // namespace

TEST_CASE("the CPU runtime binds every runtime ABI entry it is called on, and only those",
          "[cpu][abi]") {
  std::set<abi::Entry> bound;
  for (const auto &[entry, address] : cpu::cpuRuntimeSymbols().entries) {
    CHECK(address != nullptr);
    CHECK(bound.insert(entry).second); // once
  }
  CHECK(bound == entriesOn(abi::Cpu));
}

TEST_CASE("a lowered module calls Cotangent's runtime only through the ABI, and the AOT header "
          "declares what it calls",
          "[cpu][abi]") {
  auto module = parse(kModule);
  REQUIRE(module);
  auto compiled = cpu::CpuModule::compile(*module);
  REQUIRE(mlir::succeeded(compiled));
  std::set<abi::Entry> called;
  for (auto fn : (*compiled)->getLoweredModule().getOps<mlir::LLVM::LLVMFuncOp>()) {
    if (!fn.isExternal())
      continue;
    llvm::StringRef name = fn.getSymName();
    std::optional<abi::Entry> entry = abi::find(name);
    INFO(name.str());
    if (name.contains("cotangent") || name.starts_with("_mlir_")) {
      REQUIRE(entry);
      CHECK((abi::info(*entry).targets & abi::Cpu));
    }
    if (entry)
      called.insert(*entry);
  }
  for (abi::Entry e : {abi::Entry::Alloc, abi::Entry::Free, abi::Entry::BatchMatmulF32,
                       abi::Entry::BatchMatmulF64, abi::Entry::BatchMatmulBF16,
                       abi::Entry::AttentionFwdF32, abi::Entry::CollectiveStart,
                       abi::Entry::CollectiveWait})
    CHECK(called.count(e));

  llvm::SmallString<128> header;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("abi", "h", header));
  REQUIRE(mlir::succeeded((*compiled)->emitHeader(header)));
  auto text = llvm::MemoryBuffer::getFile(header);
  llvm::sys::fs::remove(header);
  REQUIRE(text);
  for (abi::Entry e : called) {
    std::string prototype = abi::prototype(abi::info(e));
    INFO(prototype);
    CHECK((*text)->getBuffer().contains(prototype + "\n"));
  }
  CHECK((*text)->getBuffer().contains(
      "void _mlir_ciface_cotangent_batch_matmul_bf16(cotangent_memref_3 *a, cotangent_memref_3 *b, "
      "cotangent_memref_3 *c);\n"));
  // The memref structs the prototypes name are declared.
  CHECK((*text)->getBuffer().contains("} cotangent_memref_3;"));
  CHECK((*text)->getBuffer().contains("} cotangent_memref_4;"));
}
