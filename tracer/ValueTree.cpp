//===- ValueTree.cpp - trees of concrete tensors --------------------------===//

#include "tracer/ValueTree.h"
#include "tracer/DType.h"
#include "tracer/Errors.h"
#include "passes/report/Residuals.h"

#include <map>

namespace cotangent {

Spec specOf(const interp::Tensor &t) {
  auto type = t.getType();
  return Spec{Shape(type.getShape().begin(), type.getShape().end()),
              fromMlirType(type.getElementType())};
}

std::vector<LeafSignature>
signatureOf(const std::vector<std::pair<std::string, interp::Tensor>> &leaves) {
  std::vector<LeafSignature> out;
  for (const auto &[path, t] : leaves)
    out.push_back({path, mlir::cotangent::shortTypeName(t.getType())});
  return out;
}

std::string describeMismatch(const std::vector<LeafSignature> &expected,
                             const std::vector<LeafSignature> &got) {
  std::map<std::string, std::string> gotByPath;
  for (const LeafSignature &leaf : got)
    gotByPath.emplace(leaf.path, leaf.type);
  std::string out;
  auto line = [&](const std::string &text) { out += (out.empty() ? "" : "\n") + text; };
  for (const LeafSignature &want : expected) {
    auto it = gotByPath.find(want.path);
    if (it == gotByPath.end())
      line(want.path + ": missing, expected " + want.type);
    else if (it->second != want.type)
      line(want.path + ": expected " + want.type + ", got " + it->second);
  }
  std::map<std::string, std::string> expectedByPath;
  for (const LeafSignature &leaf : expected)
    expectedByPath.emplace(leaf.path, leaf.type);
  for (const LeafSignature &have : got)
    if (!expectedByPath.count(have.path))
      line(have.path + ": not in the expected tree (" + have.type + ")");
  // Same leaves in another order: the containers' order differs.
  if (out.empty() && expected != got)
    line("the same leaves in another order");
  return out;
}

void throwTreeMismatch(const std::string &what, const std::string &diff) {
  throw TraceError(what + ": the trees differ:\n" + diff);
}

} // namespace cotangent
