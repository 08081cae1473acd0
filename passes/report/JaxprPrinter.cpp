//===- JaxprPrinter.cpp - print a func.func of jx ops as a jaxpr ----------===//
//
// Variables are named a, b, ..., z, ba, bb, ... in definition order across
// nested jaxprs, as JAX does. An equation is `outs = prim[params] ins`;
// params are the op's attributes in JAX's spelling, plus the result shape
// for ops whose shape is a parameter in JAX (broadcast_in_dim, reshape, ...).
//
//===----------------------------------------------------------------------===//

#include "passes/report/JaxprPrinter.h"

#include "passes/report/Residuals.h"
#include "dialects/jx/JxOps.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

#include <string>
#include <vector>

using namespace mlir;

namespace mlir::cotangent {
namespace {

std::string typeStr(Type t) {
  return isa<RankedTensorType>(t) ? shortTypeName(t) : "?";
}

std::string tuple(ArrayRef<int64_t> v, bool brackets = false) {
  std::string s = brackets ? "[" : "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  if (!brackets && v.size() == 1)
    s += ",";
  return s + (brackets ? "]" : ")");
}

std::string scalarStr(Attribute a) {
  if (auto f = dyn_cast<FloatAttr>(a)) {
    std::string s = std::to_string(f.getValueAsDouble());
    // Trim trailing zeros but keep one digit after the point: 2.000000 -> 2.0.
    while (s.size() > 2 && s.back() == '0' && s[s.size() - 2] != '.')
      s.pop_back();
    return s;
  }
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getType().isInteger(1) ? (i.getValue().isZero() ? "False" : "True")
                                    : std::to_string(i.getValue().getSExtValue());
  return "?";
}

class Printer {
public:
  explicit Printer(unsigned oneLineWidth) : oneLineWidth(oneLineWidth) {}
  std::string jaxpr(Block &block, unsigned indent);

private:
  unsigned oneLineWidth;
  std::string name(Value v);
  std::string fresh();
  std::string paramStr(Attribute a);
  std::string equation(Operation &op, unsigned indent);
  /// `(name, value)` parameters of `op`, sub-jaxprs included.
  std::vector<std::pair<std::string, std::string>> params(Operation &op, unsigned indent);

  llvm::DenseMap<Value, std::string> names_;
  unsigned counter_ = 0;
};

std::string Printer::fresh() {
  // a..z, then ba..bz, ca.., as JAX (the leading digit never is 'a').
  unsigned n = counter_++;
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('a' + n % 26));
    n /= 26;
  } while (n > 0);
  return s;
}

std::string Printer::name(Value v) {
  if (auto c = v.getDefiningOp<jx::ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()); dense && dense.isSplat())
      return scalarStr(dense.getSplatValue<Attribute>()) + ":" + typeStr(v.getType());
  auto it = names_.find(v);
  return it == names_.end() ? "?" : it->second;
}

std::string Printer::paramStr(Attribute a) {
  if (auto arr = dyn_cast<DenseI64ArrayAttr>(a))
    return tuple(arr.asArrayRef());
  if (auto b = dyn_cast<BoolAttr>(a))
    return b.getValue() ? "True" : "False";
  if (isa<UnitAttr>(a))
    return "True";
  if (auto i = dyn_cast<IntegerAttr>(a))
    return std::to_string(i.getInt());
  if (auto s = dyn_cast<StringAttr>(a))
    return s.getValue().str();
  if (auto t = dyn_cast<TypeAttr>(a))
    return elementTypeName(t.getValue());
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

std::vector<std::pair<std::string, std::string>> Printer::params(Operation &op, unsigned indent) {
  std::vector<std::pair<std::string, std::string>> out;
  auto resultShape = [&] {
    auto t = cast<RankedTensorType>(op.getResult(0).getType());
    return tuple(t.getShape());
  };
  if (auto dot = dyn_cast<jx::DotGeneralOp>(op)) {
    out.push_back({"dimension_numbers",
                   "((" + tuple(dot.getLhsContractingDimensions(), true) + ", " +
                       tuple(dot.getRhsContractingDimensions(), true) + "), (" +
                       tuple(dot.getLhsBatchDimensions(), true) + ", " +
                       tuple(dot.getRhsBatchDimensions(), true) + "))"});
    if (auto t = dot.getPreferredElementType())
      out.push_back({"preferred_element_type", elementTypeName(*t)});
    return out;
  }
  if (isa<jx::BroadcastInDimOp>(op))
    out.push_back({"shape", resultShape()});
  if (isa<jx::ReshapeOp>(op))
    out.push_back({"new_sizes", resultShape()});
  if (isa<jx::IotaOp>(op))
    out.push_back({"shape", resultShape()});
  if (isa<jx::ConvertElementTypeOp, jx::IotaOp, jx::ArgmaxOp>(op)) {
    auto t = cast<RankedTensorType>(op.getResult(0).getType());
    out.push_back({isa<jx::ArgmaxOp>(op) ? "index_dtype" : "new_dtype",
                   elementTypeName(t.getElementType())});
  }
  for (NamedAttribute attr : op.getAttrs()) {
    std::string key = attr.getName().str();
    if (key == "policy") {
      std::string s;
      llvm::raw_string_ostream os(s);
      attr.getValue().print(os);
      // "#jx.policy<dots_saveable>" -> "dots_saveable"
      if (StringRef(s).starts_with("#jx.policy<") && s.back() == '>')
        s = s.substr(11, s.size() - 12);
      out.push_back({key, s});
      continue;
    }
    out.push_back({key, paramStr(attr.getValue())});
  }
  if (auto cond = dyn_cast<jx::CondOp>(op)) {
    std::string s = "(\n";
    for (Region &r : cond.getBranches())
      s += std::string(indent + 2, ' ') + jaxpr(r.front(), indent + 2) + "\n";
    out.push_back({"branches", s + std::string(indent, ' ') + ")"});
  } else {
    for (Region &r : op.getRegions())
      if (!r.empty())
        out.push_back({"jaxpr", jaxpr(r.front(), indent)});
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Printer::equation(Operation &op, unsigned indent) {
  std::string lhs;
  for (Value r : op.getResults()) {
    names_[r] = fresh();
    lhs += (lhs.empty() ? "" : " ") + names_[r] + ":" + typeStr(r.getType());
  }
  StringRef prim = op.getName().stripDialect();
  std::string primName = isa<jx::RematOp>(op)            ? "checkpoint"
                         : isa<jx::CheckpointNameOp>(op) ? "name"
                                                         : prim.str();
  bool nested = op.getNumRegions() > 0;
  auto ps = params(op, indent + 2);
  std::string head = primName;
  if (!ps.empty()) {
    head += "[";
    for (size_t i = 0; i < ps.size(); ++i) {
      if (nested)
        head += "\n" + std::string(indent + 2, ' ');
      else if (i)
        head += " ";
      head += ps[i].first + "=" + ps[i].second;
    }
    head += nested ? "\n" + std::string(indent, ' ') + "]" : "]";
  }
  std::string args;
  for (Value v : op.getOperands())
    args += " " + name(v);
  return (lhs.empty() ? "" : lhs + " = ") + head + args;
}

std::string Printer::jaxpr(Block &block, unsigned indent) {
  std::string header = "{ lambda ; ";
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    names_[arg] = fresh();
    header += (i ? " " : "") + names_[arg] + ":" + typeStr(arg.getType());
  }
  header += ". let";
  std::vector<std::string> eqs;
  bool nested = false;
  std::string outs = "(";
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (auto [i, v] : llvm::enumerate(op.getOperands()))
        outs += (i ? ", " : "") + name(v);
      outs += op.getNumOperands() == 1 ? ",)" : ")";
      continue;
    }
    if (auto c = dyn_cast<jx::ConstantOp>(op))
      if (auto d = dyn_cast<DenseElementsAttr>(c.getValue()); d && d.isSplat())
        continue; // printed as a literal where used
    nested |= op.getNumRegions() > 0;
    eqs.push_back(equation(op, indent + 4));
  }
  if (!nested) {
    std::string line = header;
    for (size_t i = 0; i < eqs.size(); ++i)
      line += (i ? "; " : " ") + eqs[i];
    line += " in " + outs + " }";
    if (line.size() + indent <= oneLineWidth)
      return line;
  }
  std::string s = header;
  for (const std::string &e : eqs)
    s += "\n" + std::string(indent + 4, ' ') + e;
  return s + "\n" + std::string(indent + 2, ' ') + "in " + outs + " }";
}

} // namespace

void printJaxpr(func::FuncOp func, llvm::raw_ostream &os, unsigned oneLineWidth) {
  Printer p(oneLineWidth);
  os << p.jaxpr(func.getBody().front(), 0) << "\n";
}

} // namespace mlir::cotangent
