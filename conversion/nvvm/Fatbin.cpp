//===- Fatbin.cpp - one fat binary for several architectures --------------===//
//
// gpu-module-to-binary serializes a gpu.module once per attached target, so
// with one #nvvm.target per chip a gpu.binary holds one cubin each; the
// host's embedding loads only one object per binary. The toolkit's
// fatbinary packs the cubins into one fat binary, which the driver loads
// picking the image for the device it runs on: one object file runs on
// every listed architecture.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUFATBINPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(llvm::StringRef suffix) {
    if (llvm::sys::fs::createTemporaryFile("cotangent-fatbin", suffix, path))
      path.clear();
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

class JxGpuFatbinPass : public cotangent::impl::JxGpuFatbinPassBase<JxGpuFatbinPass> {
public:
  using JxGpuFatbinPassBase::JxGpuFatbinPassBase;

  void runOnOperation() override {
    llvm::SmallString<128> tool(toolkit.getValue());
    llvm::sys::path::append(tool, "bin", "fatbinary");
    getOperation().walk([&](gpu::BinaryOp binary) {
      if (binary.getObjects().size() < 2)
        return WalkResult::advance();
      if (failed(merge(binary, tool)))
        return signalPassFailure(), WalkResult::interrupt();
      return WalkResult::advance();
    });
  }

private:
  LogicalResult merge(gpu::BinaryOp binary, llvm::StringRef tool) {
    std::vector<std::unique_ptr<TempFile>> cubins;
    std::vector<std::string> args{tool.str(), "--64"};
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target || object.getFormat() != gpu::CompilationTarget::Binary)
        return binary.emitError("a fat binary packs cubins of #nvvm.target objects (format=bin)");
      llvm::StringRef chip = target.getChip();
      if (!chip.consume_front("sm_"))
        return binary.emitError("cannot pack chip ") << target.getChip() << " into a fat binary";
      auto &file = cubins.emplace_back(std::make_unique<TempFile>(".cubin"));
      std::error_code ec;
      llvm::raw_fd_ostream os(file->path, ec);
      if (file->path.empty() || ec)
        return binary.emitError("cannot write a temporary cubin");
      os << object.getObject().getValue();
      os.close();
      args.push_back(("--image3=kind=elf,sm=" + chip + ",file=" + file->path).str());
    }
    TempFile output(".fatbin");
    args.push_back(("--create=" + output.path).str());
    llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
    std::string message;
    int status = llvm::sys::ExecuteAndWait(tool, argRefs, std::nullopt, {}, 0, 0, &message);
    if (status != 0)
      return binary.emitError("fatbinary failed (")
             << tool << "): "
             << (message.empty() ? "exit status " + std::to_string(status) : message);
    auto bytes = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
    if (!bytes)
      return binary.emitError("cannot read the fat binary: ") << bytes.getError().message();
    auto first = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    auto merged = gpu::ObjectAttr::get(
        &getContext(), first.getTarget(), gpu::CompilationTarget::Fatbin,
        StringAttr::get(&getContext(), (*bytes)->getBuffer()), first.getProperties(),
        first.getKernels());
    binary.setObjectsAttr(ArrayAttr::get(&getContext(), {merged}));
    return success();
  }
};

} // namespace
