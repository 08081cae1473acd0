//===- HostRuntimeTest.cpp - the runtime both devices share ---------------===//
//
// The pieces of runtime/host on their own (byte counting, descriptors, BLAS
// layouts, the split contract), and its split with offloaded residuals: a
// CPU module whose device keeps pinned_host residuals in malloc'd memory
// runs the path the CUDA runtime takes with pinned host memory, so it is
// checked on machines without a GPU: the same gradients as the plain CPU
// module, the offloaded bytes out of the residual bytes, nothing leaked.
//
//===----------------------------------------------------------------------===//

#include "test/unit/cpu/Compare.h"

#include "passes/Passes.h"
#include "runtime/cpu/MemoryHooks.h"
#include "runtime/host/ByteCounter.h"
#include "runtime/host/FlattenExtractChains.h"
#include "runtime/host/JitEngine.h"
#include "runtime/host/ReturnedFieldPropagation.h"
#include "runtime/host/SplitContract.h"
#include "runtime/host/StructReturnsToOutParams.h"
#include "runtime/host/StridedMatrix.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdlib>
#include <cstring>

using namespace cotangent;
using namespace cotangent::test;
using host::MemoryKind;
using host::MemRefDescriptor;
using host::readTensor;

namespace {

mlir::OwningOpRef<mlir::ModuleOp> loadDifferentiated(const std::string &name) {
  auto module =
      mlir::parseSourceFile<mlir::ModuleOp>(COTANGENT_GPU_INPUTS "/" + name + ".mlir", &context());
  REQUIRE(module);
  mlir::PassManager pm(&context());
  pm.addPass(mlir::cotangent::createJxVjpPass());
  pm.addPass(mlir::cotangent::createJxRematPass());
  REQUIRE(mlir::succeeded(pm.run(*module)));
  return module;
}

/// The CPU runtime, except that residuals marked pinned_host wait in
/// malloc'd memory outside the hooks' count.
class OffloadingCpuModule : public cpu::CpuModule {
public:
  static std::unique_ptr<OffloadingCpuModule> compile(mlir::ModuleOp module) {
    std::unique_ptr<OffloadingCpuModule> compiled(new OffloadingCpuModule());
    REQUIRE(mlir::succeeded(compiled->load(module, cpu::cpuTarget())));
    return compiled;
  }
  int numOffloaded = 0, numReloaded = 0, numDiscarded = 0;

protected:
  bool offloads(MemoryKind kind) const override { return kind == MemoryKind::PinnedHost; }
  llvm::FailureOr<MemRefDescriptor> offload(mlir::RankedTensorType type,
                                            const MemRefDescriptor &residual,
                                            MemoryKind) override {
    Tensor elements = readTensor(residual, type);
    void *copy = std::malloc(std::max<int64_t>(elements.getByteSize(), 1));
    std::memcpy(copy, elements.data(), elements.getByteSize());
    ++numOffloaded;
    return MemRefDescriptor::contiguous(copy, type.getShape());
  }
  llvm::FailureOr<MemRefDescriptor> reload(mlir::RankedTensorType type,
                                           const MemRefDescriptor &offloaded) override {
    int64_t bytes = host::bufferBytes(type);
    void *block = _mlir_memref_to_llvm_alloc(bytes);
    std::memcpy(block, offloaded.allocated(), bytes);
    ++numReloaded;
    return MemRefDescriptor::contiguous(block, type.getShape());
  }
  void discard(const MemRefDescriptor &offloaded) override {
    std::free(offloaded.allocated());
    ++numDiscarded;
  }
};

} // namespace

TEST_CASE("ByteCounter: live, peak and the blocks it knows", "[host]") {
  host::ByteCounter counter;
  int a, b;
  counter.allocated(&a, 100);
  counter.allocated(&b, 50);
  CHECK(counter.live() == 150);
  CHECK(counter.sizeOf(&b) == 50);
  CHECK(counter.freed(&a));
  CHECK_FALSE(counter.freed(&a));
  CHECK(counter.sizeOf(&a) == -1);
  CHECK(counter.live() == 50);
  CHECK(counter.peak() == 150);
  counter.resetPeak();
  CHECK(counter.peak() == 50);
}

TEST_CASE("matrixLayout: what a BLAS can read of a strided matrix", "[host]") {
  auto layout = [](int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride) {
    host::MatrixLayout l = host::matrixLayout(rows, cols, rowStride, colStride);
    return std::make_tuple(l.ok, l.columnMajor, l.ld);
  };
  CHECK(layout(3, 4, 4, 1) == std::make_tuple(true, false, 4));  // row-major
  CHECK(layout(3, 4, 10, 1) == std::make_tuple(true, false, 10)); // rows of a wider buffer
  CHECK(layout(3, 4, 1, 3) == std::make_tuple(true, true, 3));   // a transpose
  CHECK(layout(3, 1, 5, 7) == std::make_tuple(true, false, 5));  // one column: its stride is moot
  CHECK(layout(1, 4, 0, 1) == std::make_tuple(true, false, 4));  // one row: likewise
  CHECK(layout(4, 1, 1, 0) == std::make_tuple(true, false, 1));
  CHECK(std::get<0>(layout(3, 4, 0, 1)) == false); // broadcast rows
  CHECK(std::get<0>(layout(3, 4, 8, 2)) == false); // neither dimension contiguous
  CHECK(std::get<0>(layout(3, 4, 2, 1)) == false); // overlapping rows
}

TEST_CASE("MemRefDescriptor reads contiguous and strided views", "[host]") {
  auto type = mlir::RankedTensorType::get({2, 3}, mlir::Float32Type::get(&context()));
  float data[] = {0, 1, 2, 3, 4, 5};
  Tensor whole = readTensor(MemRefDescriptor::contiguous(data, type.getShape()), type);
  for (int64_t i = 0; i < 6; ++i)
    CHECK(whole.getDouble(i) == i);
  // The transpose of `data` as a (3 x 2) view: strides (1, 3).
  auto transposed = mlir::RankedTensorType::get({3, 2}, type.getElementType());
  int64_t words[] = {reinterpret_cast<int64_t>(data), reinterpret_cast<int64_t>(data), 0, 3, 2,
                     1, 3};
  Tensor t = readTensor(MemRefDescriptor(words, 2), transposed);
  std::vector<double> expected = {0, 3, 1, 4, 2, 5};
  for (int64_t i = 0; i < 6; ++i)
    CHECK(t.getDouble(i) == expected[i]);
  CHECK(host::bufferBytes(transposed) == 24);
}

TEST_CASE("the split contract as the runtimes read it", "[host]") {
  auto module = loadDifferentiated("mlp-offload");
  auto split = host::findSplit(*module, "mlp");
  REQUIRE(split);
  CHECK(split->primal.getName() == "mlp");
  CHECK(split->fwd.getName() == "mlp_fwd");
  CHECK(split->bwd.getName() == "mlp_bwd");
  CHECK_FALSE(host::findSplit(*module, "missing"));
  int pinned = 0;
  for (unsigned i = 0; i < split->fwd.getNumResults(); ++i)
    pinned += host::memoryKindOfResult(split->fwd, i) == MemoryKind::PinnedHost;
  CHECK(pinned == 1);
}

TEST_CASE("offloaded residuals leave the residual bytes and come back intact", "[host][numerics]") {
  auto module = loadDifferentiated("mlp-offload");
  auto primal = module->lookupSymbol<mlir::func::FuncOp>("mlp");
  auto args = randomArgs(primal, 3, false);
  auto outType = mlir::cast<mlir::RankedTensorType>(primal.getResultTypes()[0]);
  std::vector<Tensor> cotangents = {
      Tensor::fromDoubles(outType, std::vector<double>(outType.getNumElements(), 1.0))};

  auto plain = cpu::CpuModule::compile(*module);
  REQUIRE(mlir::succeeded(plain));
  auto offloading = OffloadingCpuModule::compile(*module);
  int64_t liveBefore = cpu::allocationCounter().live();
  auto expected = (*plain)->runSplit("mlp", args, cotangents);
  auto actual = offloading->runSplit("mlp", args, cotangents);
  REQUIRE(mlir::succeeded(expected));
  REQUIRE(mlir::succeeded(actual));

  CHECK(expected->offloadedBytes == 0);
  CHECK(actual->offloadedBytes == 8 * 32 * 4); // the pre-activation f32[8,32]
  CHECK(actual->residualBytes == expected->residualBytes - actual->offloadedBytes);
  CHECK(actual->numResiduals == expected->numResiduals);
  CHECK(offloading->numOffloaded == 1);
  CHECK(offloading->numReloaded == 1);
  CHECK(offloading->numDiscarded == 1);
  CHECK(cpu::allocationCounter().live() == liveBefore);
  REQUIRE(actual->outputs.size() == expected->outputs.size());
  REQUIRE(actual->gradients.size() == expected->gradients.size());
  // Both within the bound of the interpreter's @mlp_vjp (outputs, then
  // gradients).
  std::vector<Tensor> vjpArgs(args);
  vjpArgs.insert(vjpArgs.end(), cotangents.begin(), cotangents.end());
  auto want = boundedReference(module->lookupSymbol<mlir::func::FuncOp>("mlp_vjp"), vjpArgs);
  REQUIRE(want.size() == actual->outputs.size() + actual->gradients.size());
  for (const auto *run : {&*actual, &*expected}) {
    for (size_t i = 0; i < run->outputs.size(); ++i)
      requireWithinBound(run->outputs[i], want[i]);
    for (size_t i = 0; i < run->gradients.size(); ++i)
      requireWithinBound(run->gradients[i], want[run->outputs.size() + i]);
  }
}

TEST_CASE("a split that is not there, or given the wrong cotangents, is an error", "[host]") {
  auto module = loadDifferentiated("seed-g-f");
  auto compiled = cpu::CpuModule::compile(*module);
  REQUIRE(mlir::succeeded(compiled));
  std::string errors;
  mlir::ScopedDiagnosticHandler capture(&context(), [&](mlir::Diagnostic &diag) {
    errors += diag.str() + "\n";
    return mlir::success();
  });
  CHECK(mlir::failed((*compiled)->runSplit("g", {}, {})));
  CHECK(errors.find("no forward/backward pair of @g (run --jx-vjp first)") != std::string::npos);
  auto args = randomArgs(module->lookupSymbol<mlir::func::FuncOp>("f"), 1, false);
  CHECK(mlir::failed((*compiled)->runSplit("f", args, {})));
  CHECK(errors.find("@f has 1 outputs but 0 cotangents were given") != std::string::npos);
}

// The JIT links object files, whose init sections nothing runs: the engine
// runs what llvm.global_ctors lists (the GPU's kernel loading) when
// initialized, once, by priority, and what llvm.global_dtors lists when it
// is destroyed.
namespace {
int64_t structorTrace = 0;
extern "C" void cotangent_test_record(int64_t digit) { structorTrace = structorTrace * 10 + digit; }
} // namespace

TEST_CASE("the JIT engine runs the module's constructors and destructors", "[host][jit]") {
  context().getOrLoadDialect<mlir::LLVM::LLVMDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    llvm.func @cotangent_test_record(i64)
    llvm.mlir.global_ctors ctors = [@second, @first], priorities = [20 : i32, 10 : i32], data = [#llvm.zero, #llvm.zero]
    llvm.mlir.global_dtors dtors = [@last], priorities = [0 : i32], data = [#llvm.zero]
    llvm.func internal @first() {
      %c = llvm.mlir.constant(1 : i64) : i64
      llvm.call @cotangent_test_record(%c) : (i64) -> ()
      llvm.return
    }
    llvm.func internal @second() {
      %c = llvm.mlir.constant(2 : i64) : i64
      llvm.call @cotangent_test_record(%c) : (i64) -> ()
      llvm.return
    }
    llvm.func internal @last() {
      %c = llvm.mlir.constant(3 : i64) : i64
      llvm.call @cotangent_test_record(%c) : (i64) -> ()
      llvm.return
    }
    llvm.func @_mlir_ciface_answer(%out: !llvm.ptr) {
      %c = llvm.mlir.constant(42 : i64) : i64
      llvm.store %c, %out : i64, !llvm.ptr
      llvm.return
    }
  )mlir",
                                                         &context());
  REQUIRE(module);
  host::JitTarget target = cpu::cpuTarget();
  target.symbols.extra.emplace_back("cotangent_test_record",
                                   reinterpret_cast<void *>(&cotangent_test_record));
  structorTrace = 0;
  {
    auto engine = host::JitEngine::create(*module, target, module->getLoc());
    REQUIRE(mlir::succeeded(engine));
    CHECK(structorTrace == 0);
    for (int time = 0; time < 2; ++time) {
      llvm::Error error = (*engine)->initialize();
      INFO(llvm::toString(std::move(error))); // "" on success
    }
    CHECK(structorTrace == 12);
    auto answer = (*engine)->lookupPacked("answer");
    REQUIRE(static_cast<bool>(answer));
    int64_t value = 0;
    void *result = &value;
    void *args[] = {&result};
    (*answer)(args);
    CHECK(value == 42);
    auto missing = (*engine)->lookupPacked("question");
    REQUIRE_FALSE(static_cast<bool>(missing));
    CHECK_THAT(llvm::toString(missing.takeError()), Catch::Contains("_cotangent_packed_question"));
  }
  CHECK(structorTrace == 123);
}

// The code generator's parts (host code alone, kernels spread over the
// other threads) link back into the same step whatever the thread count.
TEST_CASE("a step's code generated on 1 to 4 threads computes the same", "[host][jit]") {
  auto module = loadDifferentiated("mlp-relu");
  auto step = module->lookupSymbol<mlir::func::FuncOp>("mlp_vjp");
  REQUIRE(step);
  std::vector<Tensor> args = randomArgs(step, 7, /*positive=*/false);
  std::optional<std::vector<Tensor>> first;
  for (unsigned threads : {1u, 2u, 3u, 4u}) {
    INFO("threads " << threads);
    auto compiled = cpu::CpuModule::compile(*module, {.codegenThreads = threads});
    REQUIRE(mlir::succeeded(compiled));
    auto result = (*compiled)->call("mlp_vjp", args);
    REQUIRE(mlir::succeeded(result));
    if (!first) {
      first = result->results;
      continue;
    }
    REQUIRE(result->results.size() == first->size());
    for (size_t i = 0; i < first->size(); ++i) // the same code: equal bits
      requireIdentical(result->results[i], (*first)[i]);
  }
}

// A descriptor's constant fields (offset, sizes, strides of a static shape)
// returned by a function of the step become constants in its callers, where
// every return agrees and the function is only called.
TEST_CASE("constant fields of returned structs reach the callers", "[host][jit]") {
  llvm::LLVMContext llvmContext;
  llvm::SMDiagnostic diagnostic;
  auto module = llvm::parseAssemblyString(R"ll(
    define internal { { ptr, i64 }, i64 } @make(ptr %p, i64 %n, i1 %c) {
      %a = insertvalue { ptr, i64 } poison, ptr %p, 0
      %b = insertvalue { ptr, i64 } %a, i64 16, 1
      %r = insertvalue { { ptr, i64 }, i64 } poison, { ptr, i64 } %b, 0
      %s = insertvalue { { ptr, i64 }, i64 } %r, i64 %n, 1
      br i1 %c, label %one, label %two
    one:
      ret { { ptr, i64 }, i64 } %s
    two:
      %t = insertvalue { { ptr, i64 }, i64 } %s, i64 7, 1
      ret { { ptr, i64 }, i64 } %t
    }
    define i64 @use(ptr %p, i64 %n, i1 %c) {
      %r = call { { ptr, i64 }, i64 } @make(ptr %p, i64 %n, i1 %c)
      %inner = extractvalue { { ptr, i64 }, i64 } %r, 0
      %size = extractvalue { ptr, i64 } %inner, 1
      %other = extractvalue { { ptr, i64 }, i64 } %r, 1
      %sum = add i64 %size, %other
      ret i64 %sum
    }
    define internal { i64 } @escapes() {
      ret { i64 } { i64 3 }
    }
    define ptr @address() {
      %x = call { i64 } @escapes()
      %f = extractvalue { i64 } %x, 0
      ret ptr @escapes
    }
  )ll",
                                          diagnostic, llvmContext);
  REQUIRE(module);
  llvm::ModuleAnalysisManager analyses;
  host::ReturnedFieldPropagationPass().run(*module, analyses);
  auto *sum = llvm::cast<llvm::BinaryOperator>(
      module->getFunction("use")->getEntryBlock().getTerminator()->getOperand(0));
  // Both returns put 16 at {0, 1}; {1} is %n on one path and 7 on the other.
  auto *size = llvm::dyn_cast<llvm::ConstantInt>(sum->getOperand(0));
  REQUIRE(size);
  CHECK(size->getZExtValue() == 16);
  CHECK(llvm::isa<llvm::ExtractValueInst>(sum->getOperand(1)));
  // A function whose address is taken may be called from elsewhere.
  CHECK(llvm::count_if(module->getFunction("address")->getEntryBlock(), [](auto &inst) {
          return llvm::isa<llvm::ExtractValueInst>(inst);
        }) == 1);
}

// The stores of a descriptor that InstCombine splits read a stride as
// `extractvalue (extractvalue %d, 4), i`: after the pass each is one extract
// of a scalar, which the fast instruction selector takes; an aggregate
// extract with another use stays.
TEST_CASE("extract chains become one extract per scalar field", "[host][jit]") {
  llvm::LLVMContext llvmContext;
  llvm::SMDiagnostic diagnostic;
  auto module = llvm::parseAssemblyString(R"ll(
    define void @store(ptr %out, { ptr, i64, [2 x i64], { i64, [2 x i64] } } %d) {
      %strides = extractvalue { ptr, i64, [2 x i64], { i64, [2 x i64] } } %d, 2
      %s0 = extractvalue [2 x i64] %strides, 0
      %s1 = extractvalue [2 x i64] %strides, 1
      store i64 %s0, ptr %out
      %p1 = getelementptr i64, ptr %out, i64 1
      store i64 %s1, ptr %p1
      %nested = extractvalue { ptr, i64, [2 x i64], { i64, [2 x i64] } } %d, 3
      %pair = extractvalue { i64, [2 x i64] } %nested, 1
      %deep = extractvalue [2 x i64] %pair, 1
      %p2 = getelementptr i64, ptr %out, i64 2
      store i64 %deep, ptr %p2
      %kept = extractvalue { ptr, i64, [2 x i64], { i64, [2 x i64] } } %d, 2
      %k0 = extractvalue [2 x i64] %kept, 0
      %p3 = getelementptr [2 x i64], ptr %out, i64 2
      store [2 x i64] %kept, ptr %p3
      store i64 %k0, ptr %out
      ret void
    }
  )ll",
                                          diagnostic, llvmContext);
  REQUIRE(module);
  llvm::FunctionAnalysisManager analyses;
  llvm::Function &fn = *module->getFunction("store");
  host::FlattenExtractChainsPass().run(fn, analyses);
  CHECK_FALSE(llvm::verifyFunction(fn, &llvm::errs()));
  std::vector<std::vector<unsigned>> scalarPaths;
  int aggregateExtracts = 0;
  for (llvm::Instruction &inst : fn.getEntryBlock()) {
    auto *extract = llvm::dyn_cast<llvm::ExtractValueInst>(&inst);
    if (!extract)
      continue;
    CHECK_FALSE(llvm::isa<llvm::ExtractValueInst>(extract->getAggregateOperand()));
    if (extract->getType()->isAggregateType())
      ++aggregateExtracts;
    else
      scalarPaths.emplace_back(extract->idx_begin(), extract->idx_end());
  }
  // %kept is stored whole: it stays, and %k0 reads the field from %d.
  CHECK(aggregateExtracts == 1);
  CHECK(scalarPaths == std::vector<std::vector<unsigned>>{{2, 0}, {2, 1}, {3, 1, 1}, {2, 0}});
}

// A local function returning a struct of descriptor fields returns through
// its callers' stack slot: it stores the fields some caller reads, each call
// site reads them back right after the call. A function whose result is
// used whole, or that is not local, keeps its struct.
TEST_CASE("struct returns of local functions go through an out pointer", "[host][jit]") {
  llvm::LLVMContext llvmContext;
  llvm::SMDiagnostic diagnostic;
  auto module = llvm::parseAssemblyString(R"ll(
    define internal fastcc { ptr, i64, [2 x i64] } @layer(ptr %p, i64 %n) {
      %a = insertvalue { ptr, i64, [2 x i64] } poison, ptr %p, 0
      %b = insertvalue { ptr, i64, [2 x i64] } %a, i64 %n, 1
      %m = mul i64 %n, 2
      %c = insertvalue { ptr, i64, [2 x i64] } %b, i64 %m, 2, 1
      ret { ptr, i64, [2 x i64] } %c
    }
    define i64 @step(ptr %p, i64 %n) {
      %r = tail call fastcc { ptr, i64, [2 x i64] } @layer(ptr %p, i64 %n)
      %q = extractvalue { ptr, i64, [2 x i64] } %r, 0
      %s = extractvalue { ptr, i64, [2 x i64] } %r, 2, 1
      %r2 = tail call fastcc { ptr, i64, [2 x i64] } @layer(ptr %q, i64 %s)
      %t = extractvalue { ptr, i64, [2 x i64] } %r2, 2, 1
      ret i64 %t
    }
    define internal { i64 } @whole(i64 %n) {
      %a = insertvalue { i64 } poison, i64 %n, 0
      ret { i64 } %a
    }
    define { i64 } @passes_on(i64 %n) {
      %r = call { i64 } @whole(i64 %n)
      ret { i64 } %r
    }
    define { i64 } @exported(i64 %n) {
      %a = insertvalue { i64 } poison, i64 %n, 0
      ret { i64 } %a
    }
    define i64 @calls_exported(i64 %n) {
      %r = call { i64 } @exported(i64 %n)
      %x = extractvalue { i64 } %r, 0
      ret i64 %x
    }
  )ll",
                                          diagnostic, llvmContext);
  REQUIRE(module);
  llvm::ModuleAnalysisManager analyses;
  host::StructReturnsToOutParamsPass().run(*module, analyses);
  CHECK_FALSE(llvm::verifyModule(*module, &llvm::errs()));

  llvm::Function *layer = module->getFunction("layer");
  REQUIRE(layer);
  CHECK(layer->getReturnType()->isVoidTy());
  CHECK(layer->arg_size() == 3);
  CHECK(layer->getCallingConv() == llvm::CallingConv::Fast);
  // The fields read, {0} and {2, 1}, are stored; {1} is not.
  int stores = 0;
  for (llvm::Instruction &inst : layer->getEntryBlock())
    stores += llvm::isa<llvm::StoreInst>(inst);
  CHECK(stores == 2);
  CHECK(llvm::none_of(layer->getEntryBlock(),
                      [](auto &inst) { return llvm::isa<llvm::InsertValueInst>(inst); }));
  // Each call passes the slot, not as a tail call, and its fields are loads.
  llvm::Function *step = module->getFunction("step");
  int calls = 0, loads = 0;
  for (llvm::Instruction &inst : step->getEntryBlock()) {
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst)) {
      ++calls;
      CHECK(call->getCalledFunction() == layer);
      CHECK(llvm::isa<llvm::AllocaInst>(call->getArgOperand(0)));
      CHECK_FALSE(call->isTailCall());
      CHECK(call->getCallingConv() == llvm::CallingConv::Fast);
    }
    loads += llvm::isa<llvm::LoadInst>(inst);
    CHECK_FALSE(llvm::isa<llvm::ExtractValueInst>(inst));
  }
  CHECK(calls == 2);
  CHECK(loads == 3);
  CHECK(module->getFunction("whole")->getReturnType()->isStructTy());
  CHECK(module->getFunction("exported")->getReturnType()->isStructTy());
}
