//===- TraceTestUtil.h - helpers for checking traced IR --------*- C++ -*-===//
//
// FileCheck-like checks on printed IR (ordered substrings), op counts, and
// the location every traced op must carry: loc("fn"("this file":line:col)).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_TRACE_TRACETESTUTIL_H
#define COTANGENT_TEST_UNIT_TRACE_TRACETESTUTIL_H

#include "passes/report/JaxprPrinter.h"
#include "tracer/Trace.h"

#include "mlir/IR/BuiltinOps.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

namespace cotangent::test {

/// Number of ops named `name` (e.g. "jx.sin") anywhere in `module`.
inline int countOps(mlir::ModuleOp module, llvm::StringRef name) {
  int n = 0;
  module.walk([&](mlir::Operation *op) { n += op->getName().getStringRef() == name; });
  return n;
}

/// True if `patterns` occur in `text` in this order (like CHECK lines).
inline bool checkInOrder(const std::string &text, const std::vector<std::string> &patterns) {
  size_t pos = 0;
  for (const std::string &p : patterns) {
    size_t at = text.find(p, pos);
    if (at == std::string::npos) {
      UNSCOPED_INFO("pattern not found (in order): " << p << "\nin:\n" << text);
      return false;
    }
    pos = at + p.size();
  }
  return true;
}

/// Every op inside the function carries NameLoc(fn in `names`, file `file`).
/// Ops written directly in a TEST_CASE body are named after the function
/// Catch generates for it (as ops in any named C++ function are).
inline bool allOpsLocated(const Traced &t, const std::set<std::string> &names,
                          const std::string &file) {
  bool ok = true;
  t.func().walk([&](mlir::Operation *op) {
    if (op == t.func().getOperation())
      return;
    auto name = mlir::dyn_cast<mlir::NameLoc>(op->getLoc());
    auto fileLoc = name ? mlir::dyn_cast<mlir::FileLineColLoc>(name.getChildLoc()) : nullptr;
    bool catchBody = name && name.getName().strref().starts_with("C_A_T_C_H_T_E_S_T");
    if (!name || !fileLoc || (!names.count(name.getName().str()) && !catchBody) ||
        fileLoc.getFilename().str() != file) {
      std::string s;
      llvm::raw_string_ostream os(s);
      op->getLoc().print(os);
      UNSCOPED_INFO("bad location on " << op->getName().getStringRef().str() << ": " << s);
      ok = false;
    }
  });
  return ok;
}

/// Maximum nesting depth of jx.remat ops.
inline int rematDepth(mlir::Operation *root) {
  int best = 0;
  root->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() != "jx.remat")
      return;
    int d = 0;
    for (mlir::Operation *p = op; p; p = p->getParentOp())
      d += p->getName().getStringRef() == "jx.remat";
    best = std::max(best, d);
  });
  return best;
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_UNIT_TRACE_TRACETESTUTIL_H
