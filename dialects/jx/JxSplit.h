//===- JxSplit.h - the forward/backward contract, as C++ -------*- C++ -*-===//
//
// --jx-vjp splits @f into @f_fwd and @f_bwd and records the split in typed
// attributes (JxAttrs.td): #jx.forward on the forward, #jx.backward on the
// backward, #jx.residual on residual positions, #jx.remat_scope on ops
// flattened out of jx.remat regions. The dialect verifies them; this header is
// the one way passes, the tracer, the runtimes and the tools read and write
// them. Pairs are found by these attributes, never by the names' suffixes.
// The other jx attributes that passes hand over (argument and result names,
// scan schedules) are read and written here too.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXSPLIT_H
#define COTANGENT_DIALECTS_JX_JXSPLIT_H

#include "dialects/jx/JxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace mlir::jx {

/// The two halves of a split.
struct SplitPair {
  func::FuncOp fwd, bwd;
};

//===----------------------------------------------------------------------===//
// Finding and marking pairs
//===----------------------------------------------------------------------===//

/// Records that `fwd` and `bwd` are the halves of the split of `primal` (null
/// if there is none): `fwd` returns `numPrimalResults` results, then the
/// `numResiduals` residuals `bwd` takes before the cotangents.
void markSplit(func::FuncOp fwd, func::FuncOp bwd, FlatSymbolRefAttr primal,
               int64_t numPrimalResults, int64_t numResiduals);

/// The forward half's attribute, or null.
ForwardAttr getForwardAttr(func::FuncOp fn);
/// The backward half's attribute, or null.
BackwardAttr getBackwardAttr(func::FuncOp fn);

/// True if `fn` is either half of a split.
bool isSplitHalf(func::FuncOp fn);

/// The other half of the split `fn` belongs to; null if `fn` is no half or
/// its partner is missing (which the verifier reports).
func::FuncOp getSplitPartner(func::FuncOp fn);

/// The pair `fn` belongs to, if it is a half of one whose partner exists.
std::optional<SplitPair> getSplitPair(func::FuncOp fn);

/// Every split pair of `module`, in the order of their forwards.
SmallVector<SplitPair> getSplitPairs(ModuleOp module);

/// The pair a user means by `name`: the split of function @name (its forward
/// names @name as its primal), or the pair @name is a half of.
std::optional<SplitPair> lookupSplitPair(ModuleOp module, StringRef name);

/// The name a pair is reported under: its primal's, else its forward's.
StringRef getSplitName(SplitPair pair);

/// A split pair as code that keeps no IR (the runtimes) needs it: the names
/// of its halves and how many primal results the forward returns.
struct SplitSymbols {
  std::string fwd, bwd;
  int64_t numPrimalResults;
};

/// Every split pair of `module`, under the name it is reported by (getSplitName).
llvm::StringMap<SplitSymbols> getSplitSymbols(ModuleOp module);

/// How many of `fwd`'s results are the primal results (the rest are residuals).
int64_t numPrimalResults(func::FuncOp fwd);

/// How many of `bwd`'s leading arguments are residuals.
int64_t numResiduals(func::FuncOp bwd);

/// Updates the residual count of `bwd` (after --jx-remat changed the list).
void setNumResiduals(func::FuncOp bwd, int64_t numResiduals);

/// Removes every jx attribute of `fn`, of its arguments and of its results:
/// for lowerings that leave the jx level (and its types) behind.
void stripJxAttributes(func::FuncOp fn);

//===----------------------------------------------------------------------===//
// Residuals
//===----------------------------------------------------------------------===//

/// The remat-region stacks (DenseI64ArrayAttr, innermost first) of the ops
/// that asked for residual argument `index` of `bwd`; null if not recorded.
ArrayAttr getRequestedBy(func::FuncOp bwd, unsigned index);

/// The bytes a residual of `type` holds: elements times the element's bytes
/// (an i1 takes one); 0 for what is not a statically shaped tensor.
int64_t getTensorBytes(Type type);

/// Records `stacks` (DenseI64ArrayAttrs) as the requesters of residual
/// argument `index` of `bwd`.
void setRequestedBy(func::FuncOp bwd, unsigned index, ArrayAttr stacks);

/// The memory kind of a residual offloaded to page-locked host memory (the
/// one kind a runtime offloads to; "device" or none means it stays).
inline constexpr llvm::StringLiteral kPinnedHost = "pinned_host";

/// The memory kind of result `index` of `fn` ("" unless offloaded).
StringRef getResultMemoryKind(func::FuncOp fn, unsigned index);
/// The memory kind of argument `index` of `fn` ("" unless offloaded).
StringRef getArgMemoryKind(func::FuncOp fn, unsigned index);

/// Marks residual `index` (counted from the first residual) as living in
/// `memoryKind`, on both sides of the split.
void setResidualMemoryKind(SplitPair pair, unsigned index, StringRef memoryKind);

//===----------------------------------------------------------------------===//
// Remat scopes: ops flattened out of jx.remat regions
//===----------------------------------------------------------------------===//

/// The scope of `op`, or null if it came from no remat region.
RematScopeAttr getRematScope(Operation *op);

/// The ids of the regions `op` came from, innermost first (empty if none).
ArrayRef<int64_t> getRematRegions(Operation *op);

/// Records that `op` lies in remat region `id` under `policy` (call for the
/// innermost region first); `preventCse` is kept from the innermost region.
void enterRematScope(Operation *op, PolicyAttr policy, int64_t id, bool preventCse);

/// Gives `to` the remat scope of `from` (ops a rule emits for a scoped op).
void copyRematScope(Operation *from, Operation *to);

/// Removes the remat scopes of `root` and of every op nested in it.
void stripRematScopes(Operation *root);

//===----------------------------------------------------------------------===//
// Names the tracer gives arguments and results
//===----------------------------------------------------------------------===//

/// The name of argument `index` of `fn` (`params['w']`), or null.
StringAttr getArgName(func::FuncOp fn, unsigned index);
void setArgName(func::FuncOp fn, unsigned index, StringRef name);

/// The name of result `index` of `fn`, or null.
StringAttr getResultName(func::FuncOp fn, unsigned index);
void setResultName(func::FuncOp fn, unsigned index, StringRef name);

//===----------------------------------------------------------------------===//
// Donated arguments
//===----------------------------------------------------------------------===//

/// The result that may be written over argument `index`'s buffer (the
/// caller donated it), or nullopt.
std::optional<unsigned> getDonatedTo(func::FuncOp fn, unsigned index);
void setDonatedTo(func::FuncOp fn, unsigned index, unsigned result);

//===----------------------------------------------------------------------===//
// Scan schedules
//===----------------------------------------------------------------------===//

/// The checkpoint_lengths an expanded scan came from (empty if none).
ArrayRef<int64_t> getScanSchedule(ScanOp scan);
void setScanSchedule(ScanOp scan, ArrayRef<int64_t> lengths);

} // namespace mlir::jx

#endif // COTANGENT_DIALECTS_JX_JXSPLIT_H
