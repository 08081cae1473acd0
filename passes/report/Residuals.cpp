//===- Residuals.cpp - describing what a forward function saves -----------===//

#include "passes/report/Residuals.h"
#include "dialects/jx/JxSplit.h"
#include "passes/remat/ScanSchedule.h"

#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::cotangent;

std::string mlir::cotangent::elementTypeName(Type element) {
  if (element.isInteger(1))
    return "bool";
  if (element.isInteger())
    return "i" + std::to_string(element.getIntOrFloatBitWidth());
  if (element.isIndex())
    return "index";
  if (element.isBF16())
    return "bf16";
  if (!element.isIntOrFloat()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << element;
    return text;
  }
  return "f" + std::to_string(element.getIntOrFloatBitWidth());
}

std::string mlir::cotangent::shortTypeName(Type type) {
  auto tensor = cast<ShapedType>(type);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << elementTypeName(tensor.getElementType()) << "[";
  llvm::interleave(tensor.getShape(), os, ",");
  os << "]";
  return out;
}

std::string mlir::cotangent::describeLocation(Location loc) {
  std::string fn, file;
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l); name && fn.empty())
      fn = name.getName().str();
    if (auto flc = dyn_cast<FileLineColLoc>(l); flc && file.empty())
      file = (flc.getFilename().str() + ":" + std::to_string(flc.getLine()));
    return WalkResult::advance();
  });
  if (file.empty())
    file = "<unknown>";
  return fn.empty() ? file : file + " (" + fn + ")";
}

static std::string argumentName(func::FuncOp fwd, unsigned index) {
  if (StringAttr name = jx::getArgName(fwd, index))
    return name.str();
  if (auto loc = dyn_cast<NameLoc>(fwd.getArgument(index).getLoc()))
    return loc.getName().str();
  return "arg" + std::to_string(index);
}

/// What a scan stacks in its result `index`: the per-iteration value it yields.
static std::string describeStacked(jx::ScanOp scan, unsigned index) {
  Value inner = scan.getBody().front().getTerminator()->getOperand(index);
  if (auto arg = dyn_cast<BlockArgument>(inner))
    return arg.getArgNumber() < scan.getNumConsts() + scan.getNumCarry()
               ? "the carry at each iteration"
               : "the xs slice of each iteration";
  Operation *def = inner.getDefiningOp();
  if (auto named = dyn_cast<jx::CheckpointNameOp>(def))
    return "one '" + named.getName().str() + "' from " + describeLocation(def->getLoc()) +
           " per iteration";
  return "one output of " + def->getName().stripDialect().str() + " from " +
         describeLocation(def->getLoc()) + " per iteration";
}

FailureOr<std::vector<Residual>> mlir::cotangent::describeResiduals(func::FuncOp fwd) {
  if (!jx::getForwardAttr(fwd) || fwd.isExternal())
    return fwd.emitOpError("is not a forward function made by --jx-vjp");
  auto ret = cast<func::ReturnOp>(fwd.getBody().front().getTerminator());
  std::vector<Residual> out;
  for (unsigned i = jx::numPrimalResults(fwd); i < ret.getNumOperands(); ++i) {
    Value v = ret.getOperand(i);
    Residual r;
    r.type = shortTypeName(v.getType());
    r.bytes = jx::getTensorBytes(v.getType());
    r.memoryKind = jx::getResultMemoryKind(fwd, i).str();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      r.kind = Residual::Kind::Argument;
      r.what = argumentName(fwd, arg.getArgNumber());
    } else if (auto named = v.getDefiningOp<jx::CheckpointNameOp>()) {
      r.kind = Residual::Kind::Named;
      r.what = named.getName().str();
      r.location = describeLocation(named.getLoc());
    } else {
      Operation *def = v.getDefiningOp();
      r.kind = Residual::Kind::Output;
      r.what = def->getName().stripDialect().str();
      r.location = describeLocation(def->getLoc());
      if (auto scan = dyn_cast<jx::ScanOp>(def)) {
        r.stackedFrom = describeStacked(scan, cast<OpResult>(v).getResultNumber());
        if (ArrayRef<int64_t> lengths = jx::getScanSchedule(scan); !lengths.empty())
          r.stackedFrom += " (" + describeSchedule(lengths) + ")";
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

void mlir::cotangent::printResiduals(ArrayRef<Residual> residuals, raw_ostream &os) {
  int64_t total = 0, offloaded = 0;
  for (const Residual &r : residuals) {
    os << r.type << " ";
    switch (r.kind) {
    case Residual::Kind::Argument:
      os << "from the argument " << r.what;
      break;
    case Residual::Kind::Output:
      if (!r.stackedFrom.empty())
        os << "stacked by the scan from " << r.location << ", " << r.stackedFrom;
      else
        os << "output of " << r.what << " from " << r.location;
      break;
    case Residual::Kind::Named:
      os << "named '" << r.what << "' from " << r.location;
      break;
    }
    if (!r.memoryKind.empty()) {
      os << " [offloaded to " << r.memoryKind << "]";
      offloaded += r.bytes;
    }
    os << "\n";
    total += r.bytes;
  }
  os << "total: " << residuals.size() << " residuals, " << total << " bytes";
  if (offloaded)
    os << " (" << offloaded << " offloaded)";
  os << "\n";
}

llvm::json::Object mlir::cotangent::residualsJson(StringRef function,
                                                 ArrayRef<Residual> residuals) {
  llvm::json::Array items;
  int64_t total = 0;
  for (const Residual &r : residuals) {
    static constexpr const char *kinds[] = {"argument", "output", "named"};
    llvm::json::Object item{{"type", r.type},
                            {"bytes", r.bytes},
                            {"kind", kinds[static_cast<int>(r.kind)]},
                            {"what", r.what}};
    if (!r.location.empty())
      item["location"] = r.location;
    if (!r.memoryKind.empty())
      item["memory_kind"] = r.memoryKind;
    if (!r.stackedFrom.empty())
      item["stacked_from"] = r.stackedFrom;
    items.push_back(std::move(item));
    total += r.bytes;
  }
  return llvm::json::Object{{"function", function.str()},
                            {"residuals", std::move(items)},
                            {"total_bytes", total}};
}
