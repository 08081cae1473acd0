//===- JxDialect.h - The jx dialect and its attributes ----------*- C++ -*-===//

#ifndef COTANGENT_DIALECTS_JX_JXDIALECT_H
#define COTANGENT_DIALECTS_JX_JXDIALECT_H

#include "dialects/jx/PolicyKind.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

// The attributes first: the dialect's discardable-attribute helpers use them.
#define GET_ATTRDEF_CLASSES
#include "dialects/jx/JxAttrs.h.inc"

#include "dialects/jx/JxDialect.h.inc"

namespace mlir::jx {

// The names of the attributes jx puts on other ops, functions' arguments and
// results (declared once, as the dialect's discardable attributes).
inline constexpr llvm::StringLiteral kForwardAttrName = JxDialect::ForwardAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kBackwardAttrName =
    JxDialect::BackwardAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kResidualAttrName =
    JxDialect::ResidualAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kRematScopeAttrName =
    JxDialect::RematScopeAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kScanScheduleAttrName =
    JxDialect::ScanScheduleAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kArgNameAttrName = JxDialect::ArgNameAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kResultNameAttrName =
    JxDialect::ResultNameAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kDonatedToAttrName =
    JxDialect::DonatedToAttrHelper::getNameStr();

} // namespace mlir::jx

#endif // COTANGENT_DIALECTS_JX_JXDIALECT_H
