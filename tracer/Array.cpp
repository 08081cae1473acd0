//===- Array.cpp - host arrays without MLIR -------------------------------===//

#include "tracer/Array.h"

#include "dialects/jx/JxOps.h"
#include "runtime/interpreter/TensorNpy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace cotangent;

mlir::MLIRContext &cotangent::defaultContext() {
  // Never destroyed: compiled functions and arrays refer to its types until
  // the process ends.
  static mlir::MLIRContext *ctx = [] {
    auto *c = new mlir::MLIRContext();
    c->loadDialect<mlir::jx::JxDialect, mlir::func::FuncDialect>();
    return c;
  }();
  return *ctx;
}

namespace {

mlir::RankedTensorType typeOf(const Shape &shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0)
      throw TraceError("array: negative dimension in " + shapeString(dtype, shape));
  return mlir::RankedTensorType::get(shape, toMlirType(&defaultContext(), dtype));
}

} // namespace

interp::Tensor array::zeros(const Shape &shape, DType dtype) { return interp::Tensor(typeOf(shape, dtype)); }

interp::Tensor array::full(const Shape &shape, double value, DType dtype) {
  interp::Tensor t(typeOf(shape, dtype));
  for (int64_t i = 0, e = t.getNumElements(); i < e; ++i)
    t.setDouble(i, value);
  return t;
}

interp::Tensor array::fromBytes(const void *bytes, size_t count, const Shape &shape, DType dtype) {
  mlir::RankedTensorType type = typeOf(shape, dtype);
  if (static_cast<int64_t>(count) != type.getNumElements())
    throw TraceError("array::from: " + std::to_string(count) + " values for " +
                     shapeString(dtype, shape) + ", which holds " +
                     std::to_string(type.getNumElements()));
  interp::Tensor t(type);
  if (t.getByteSize() > 0)
    std::memcpy(t.data(), bytes, static_cast<size_t>(t.getByteSize()));
  return t;
}

DType array::dtype(const interp::Tensor &t) { return fromMlirType(t.getElementType()); }
Shape array::shape(const interp::Tensor &t) { return t.getShape().vec(); }
std::string array::str(const interp::Tensor &t) { return shapeString(dtype(t), shape(t)); }

void array::save(const std::string &path, const interp::Tensor &t) {
  llvm::Expected<std::string> bytes = npy::serialize(t);
  if (!bytes)
    throw TraceError("array::save: " + path + ": " + llvm::toString(bytes.takeError()));
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    throw TraceError("array::save: " + path + ": " + ec.message());
  os << *bytes;
  os.close();
  if (os.has_error()) {
    // A full disk: reported, and cleared (an uncleared stream error aborts).
    std::string message = os.error().message();
    os.clear_error();
    throw TraceError("array::save: " + path + ": " + message);
  }
}

interp::Tensor array::load(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    throw TraceError("array::load: " + path + ": " + buffer.getError().message());
  llvm::Expected<interp::Tensor> t = npy::parse(&defaultContext(), (*buffer)->getBuffer());
  if (!t)
    throw TraceError("array::load: " + path + ": " + llvm::toString(t.takeError()));
  return std::move(*t);
}
