//===- Ops.h - One free function per jx op ----------------------*- C++ -*-===//
//
// The reference semantics of the jx dialect on host tensors, as in JAX/XLA.
// Each function takes Tensors and plain attribute values (no IR), so tests
// and other runtimes can call them directly. Operands are assumed to satisfy
// the op's verifier. Arithmetic runs in the element type's compute type:
// float for f32/f16/bf16 (each result rounded to the storage type, nearest
// even), double for f64, wrapping two's complement for i32/i64.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_INTERPRETER_OPS_H
#define COTANGENT_RUNTIME_INTERPRETER_OPS_H

#include "runtime/interpreter/Tensor.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace cotangent::interp {

//===----------------------------------------------------------------------===//
// Elementwise (OpsElementwise.cpp)
//===----------------------------------------------------------------------===//

/// Unary ops, elementwise on `x`; the result has x's type.
Tensor negOp(const Tensor &x);
Tensor sinOp(const Tensor &x);
Tensor cosOp(const Tensor &x);
Tensor tanOp(const Tensor &x);
Tensor expOp(const Tensor &x);
Tensor logOp(const Tensor &x);
Tensor log1pOp(const Tensor &x);
Tensor expm1Op(const Tensor &x);
Tensor erfOp(const Tensor &x);
Tensor erfcOp(const Tensor &x);
Tensor tanhOp(const Tensor &x);
/// 1 / (1 + exp(-x)).
Tensor logisticOp(const Tensor &x);
Tensor sqrtOp(const Tensor &x);
/// 1 / sqrt(x).
Tensor rsqrtOp(const Tensor &x);
/// |x| (integers wrap: abs(INT_MIN) == INT_MIN).
Tensor absOp(const Tensor &x);
/// -1, 0 or 1 (floats keep -0, +0 and NaN).
Tensor signOp(const Tensor &x);
Tensor floorOp(const Tensor &x);
Tensor ceilOp(const Tensor &x);
/// Logical not for i1, bitwise not for integers.
Tensor notOp(const Tensor &x);
/// The identity.
Tensor stopGradientOp(const Tensor &x);
/// x ** y by repeated squaring in the compute type; y < 0 gives 1 / x ** -y.
Tensor integerPowOp(const Tensor &x, int64_t y);

/// Binary ops on two tensors of one type.
Tensor addOp(const Tensor &lhs, const Tensor &rhs);
Tensor subOp(const Tensor &lhs, const Tensor &rhs);
Tensor mulOp(const Tensor &lhs, const Tensor &rhs);
/// Integers truncate toward zero; x / 0 is -1 and INT_MIN / -1 is INT_MIN (XLA).
Tensor divOp(const Tensor &lhs, const Tensor &rhs);
/// NaN-propagating maximum / minimum.
Tensor maxOp(const Tensor &lhs, const Tensor &rhs);
Tensor minOp(const Tensor &lhs, const Tensor &rhs);
Tensor powOp(const Tensor &lhs, const Tensor &rhs);
/// atan2(lhs, rhs).
Tensor atan2Op(const Tensor &lhs, const Tensor &rhs);
/// Remainder with the dividend's sign (fmod); integer x % 0 is x (XLA).
Tensor remOp(const Tensor &lhs, const Tensor &rhs);
Tensor andOp(const Tensor &lhs, const Tensor &rhs);
Tensor orOp(const Tensor &lhs, const Tensor &rhs);
Tensor xorOp(const Tensor &lhs, const Tensor &rhs);
/// Zeros shifted in; 0 for a shift outside [0, bit width).
Tensor shiftRightLogicalOp(const Tensor &lhs, const Tensor &rhs);
/// threefry2x32 (dialects/jx/Threefry.h) on i32 words: {y0, y1}.
std::vector<Tensor> threefry2x32Op(const Tensor &k0, const Tensor &k1, const Tensor &x0,
                                   const Tensor &x1);

/// Comparisons: i1 tensors of the operands' shape (NaN compares unequal).
Tensor eqOp(const Tensor &lhs, const Tensor &rhs);
Tensor neOp(const Tensor &lhs, const Tensor &rhs);
Tensor ltOp(const Tensor &lhs, const Tensor &rhs);
Tensor leOp(const Tensor &lhs, const Tensor &rhs);
Tensor gtOp(const Tensor &lhs, const Tensor &rhs);
Tensor geOp(const Tensor &lhs, const Tensor &rhs);

/// Elementwise cases[which]; `which` is i1 or i32, scalar or of the cases'
/// shape; i32 indices are clamped into range.
Tensor selectNOp(const Tensor &which, llvm::ArrayRef<Tensor> cases);

/// Converts to `elementType`: float -> int truncates toward zero, saturates
/// and maps NaN to 0; anything -> i1 is `x != 0`; floats round to nearest even.
Tensor convertElementTypeOp(const Tensor &x, mlir::Type elementType);
/// Each element's bytes as `elementType` (of the same width).
Tensor bitcastConvertTypeOp(const Tensor &x, mlir::Type elementType);

//===----------------------------------------------------------------------===//
// Shapes (OpsShape.cpp)
//===----------------------------------------------------------------------===//

/// Operand dimension i becomes result dimension dims[i] (size 1 or equal).
Tensor broadcastInDimOp(const Tensor &x, llvm::ArrayRef<int64_t> resultShape,
                        llvm::ArrayRef<int64_t> dims);
/// Same elements in row-major order, new shape (shares the buffer).
Tensor reshapeOp(const Tensor &x, llvm::ArrayRef<int64_t> resultShape);
/// Result dimension i is operand dimension perm[i].
Tensor transposeOp(const Tensor &x, llvm::ArrayRef<int64_t> perm);
/// Removes the size-1 dimensions `dims` (shares the buffer).
Tensor squeezeOp(const Tensor &x, llvm::ArrayRef<int64_t> dims);
/// Inserts size-1 dimensions at result positions `dims` (shares the buffer).
Tensor expandDimsOp(const Tensor &x, llvm::ArrayRef<int64_t> dims);
/// Concatenates `inputs` (at least one) along `dim`.
Tensor concatenateOp(llvm::ArrayRef<Tensor> inputs, int64_t dim);
/// result[i] = x[start + i * stride] per dimension, up to `limit`.
Tensor sliceOp(const Tensor &x, llvm::ArrayRef<int64_t> start, llvm::ArrayRef<int64_t> limit,
               llvm::ArrayRef<int64_t> strides);
/// A `sizes` slice at `starts`, each clamped into [0, dim - size].
Tensor dynamicSliceOp(const Tensor &x, llvm::ArrayRef<int64_t> starts,
                      llvm::ArrayRef<int64_t> sizes);
/// `x` with `update` written at `starts`, each clamped into [0, dim - size].
Tensor dynamicUpdateSliceOp(const Tensor &x, const Tensor &update,
                            llvm::ArrayRef<int64_t> starts);
/// Slices of `x` along `axis` at the 1-D integer `indices`, each clamped
/// into [0, n - 1]: the axis becomes as long as the indices.
Tensor takeOp(const Tensor &x, const Tensor &indices, int64_t axis);
/// `x` with each slice of `updates` along `axis` added at its (clamped)
/// index; repeated indices accumulate, in index order.
Tensor scatterAddOp(const Tensor &x, const Tensor &indices, const Tensor &updates, int64_t axis);
/// XLA's pad: `low` / `high` (negative crops) and `interior` elements of the
/// 0-d `paddingValue` around and between x's elements.
Tensor padOp(const Tensor &x, const Tensor &paddingValue, llvm::ArrayRef<int64_t> low,
             llvm::ArrayRef<int64_t> high, llvm::ArrayRef<int64_t> interior);
/// result[i...] = i[dim], in `type`'s element type.
Tensor iotaOp(mlir::RankedTensorType type, int64_t dim);

//===----------------------------------------------------------------------===//
// Contractions and reductions (OpsReduction.cpp)
//===----------------------------------------------------------------------===//

/// JAX's dot_general: result dims are batch, lhs free, rhs free. Accumulates
/// in the compute type of `resultElementType` (lhs's when null), contracting
/// dimensions in row-major order.
Tensor dotGeneralOp(const Tensor &lhs, const Tensor &rhs, llvm::ArrayRef<int64_t> lhsContracting,
                    llvm::ArrayRef<int64_t> rhsContracting, llvm::ArrayRef<int64_t> lhsBatch,
                    llvm::ArrayRef<int64_t> rhsBatch, mlir::Type resultElementType = {});
/// jax.nn.dot_product_attention on [B, T, N, H] query and [B, S, N, H] key
/// and value: {output, logsumexp [B, N, T]} (JxAttentionOps.td), by the
/// definition, in double, each result rounded once.
std::vector<Tensor> dotProductAttentionOp(const Tensor &query, const Tensor &key,
                                          const Tensor &value, double scale, bool causal);
/// Its backward: {dquery, dkey, dvalue} from the forward's operands, output,
/// logsumexp and the output's cotangent (OpsAttention.cpp).
std::vector<Tensor> dotProductAttentionGradOp(const Tensor &query, const Tensor &key,
                                              const Tensor &value, const Tensor &output,
                                              const Tensor &logsumexp, const Tensor &doutput,
                                              double scale, bool causal);
/// Reductions over `axes` (removed from the shape), accumulating in the
/// compute type in row-major order and rounding once at the end. Max and min
/// propagate NaN.
Tensor reduceSumOp(const Tensor &x, llvm::ArrayRef<int64_t> axes);
Tensor reduceMaxOp(const Tensor &x, llvm::ArrayRef<int64_t> axes);
Tensor reduceMinOp(const Tensor &x, llvm::ArrayRef<int64_t> axes);
Tensor reduceProdOp(const Tensor &x, llvm::ArrayRef<int64_t> axes);
/// Index of the maximum along `axis` (removed), first on ties; NaN counts as
/// the maximum. `indexType` is i32 or i64.
Tensor argmaxOp(const Tensor &x, int64_t axis, mlir::Type indexType);
/// Inclusive cumulative sum along `axis`, from the end with `reverse`.
Tensor cumsumOp(const Tensor &x, int64_t axis, bool reverse);

//===----------------------------------------------------------------------===//
// Control flow (OpsControlFlow.cpp)
//===----------------------------------------------------------------------===//

/// A region body: takes its block arguments, returns what it yields.
using Body = llvm::function_ref<llvm::FailureOr<std::vector<Tensor>>(std::vector<Tensor> args)>;

/// JAX's scan: body(consts..., carry..., x...) -> (carry..., y...), with each
/// x the slice of an xs along its leading axis; returns (carry..., ys...)
/// with ys stacked along a new leading axis of size `length` (ysTypes are
/// their types). `reverse` runs from the last slice; ys[i] always pairs xs[i].
llvm::FailureOr<std::vector<Tensor>> scanOp(llvm::ArrayRef<Tensor> consts,
                                            std::vector<Tensor> carry,
                                            llvm::ArrayRef<Tensor> xs, int64_t length,
                                            bool reverse,
                                            llvm::ArrayRef<mlir::RankedTensorType> ysTypes,
                                            Body body);
/// The branch `index` picks (i1: false -> 0; i32: clamped), run on `inputs`.
int64_t condBranchIndex(const Tensor &index, int64_t numBranches);
/// JAX's while: runs body on the carry while cond (a 0-d i1) holds.
llvm::FailureOr<std::vector<Tensor>> whileOp(std::vector<Tensor> carry, Body cond, Body body);

/// Slice `i` of `x` along its leading axis (rank - 1).
Tensor indexLeading(const Tensor &x, int64_t i);
/// Writes `slice` (x's shape without the leading axis) as slice `i` of `x`.
void setLeading(Tensor &x, int64_t i, const Tensor &slice);

} // namespace cotangent::interp

#endif // COTANGENT_RUNTIME_INTERPRETER_OPS_H
