//===- CompositeBuilder.h - writing a composite op as jx ops ----*- C++ -*-===//
//
// What the expansions of the composite ops (CompositeOpInterface: fused
// attention, the fused softmax cross-entropy) share: jx ops emitted at one
// location in the expansion's compute type, f32 for low floats (f64 stays),
// and rounded back to the op's types at the end.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_COMPOSITEBUILDER_H
#define COTANGENT_DIALECTS_JX_COMPOSITEBUILDER_H

#include "dialects/jx/JxOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::jx {

struct CompositeBuilder {
  OpBuilder &b;
  Location loc;
  Type wide; ///< the compute type

  /// A builder computing in f32, or f64 where `like`'s elements are f64.
  CompositeBuilder(OpBuilder &b, Location loc, Value like)
      : b(b), loc(loc), wide(cast<RankedTensorType>(like.getType()).getElementType()) {
    if (!wide.isF64())
      wide = Float32Type::get(b.getContext());
  }

  RankedTensorType typeOf(Value v) const { return cast<RankedTensorType>(v.getType()); }
  /// `v` in the compute type.
  Value widen(Value v) {
    RankedTensorType t = typeOf(v);
    return t.getElementType() == wide ? v
                                      : ConvertElementTypeOp::create(b, loc, t.clone(wide), v);
  }
  /// `v` rounded to type `to`.
  Value narrow(Value v, Type to) {
    return v.getType() == to ? v : ConvertElementTypeOp::create(b, loc, to, v).getResult();
  }
  Value splat(RankedTensorType t, double x) {
    Type element = t.getElementType();
    Attribute scalar = isa<FloatType>(element) ? Attribute(b.getFloatAttr(element, x))
                                               : b.getIntegerAttr(element, static_cast<int64_t>(x));
    return ConstantOp::create(b, loc, DenseElementsAttr::get(t, scalar));
  }
  Value dot(Value lhs, Value rhs, ArrayRef<int64_t> lc, ArrayRef<int64_t> rc,
            ArrayRef<int64_t> lb, ArrayRef<int64_t> rb) {
    return DotGeneralOp::create(b, loc, lhs, rhs, b.getDenseI64ArrayAttr(lc),
                                b.getDenseI64ArrayAttr(rc), b.getDenseI64ArrayAttr(lb),
                                b.getDenseI64ArrayAttr(rb), TypeAttr());
  }
  /// `rows` (the leading dimensions of `like`) broadcast along its last one.
  Value alongLast(Value rows, Value like) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d + 1 < typeOf(like).getRank(); ++d)
      dims.push_back(d);
    return BroadcastInDimOp::create(b, loc, typeOf(like).clone(typeOf(rows).getElementType()),
                                    rows, b.getDenseI64ArrayAttr(dims));
  }
  /// The reduction over the last dimension.
  template <typename ReduceOp>
  Value reduceLast(Value x) {
    return ReduceOp::create(b, loc, x, b.getDenseI64ArrayAttr({typeOf(x).getRank() - 1}));
  }
};

/// A module of one function `@expanded` taking `composite`'s operand types
/// and returning its expansion (a copy of the op, written out): what the
/// interpreter runs for a composite without its own reference, and what its
/// error bounds are derived from.
OwningOpRef<ModuleOp> expandIntoFunction(CompositeOpInterface composite);

} // namespace mlir::jx

#endif // COTANGENT_DIALECTS_JX_COMPOSITEBUILDER_H
