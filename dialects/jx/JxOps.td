//===- JxOps.td - jx ops: JAX's primitives and remat structure -*- tablegen -*-===//
//
// One op per JAX primitive. Shapes are static; there is no implicit
// broadcasting or dtype promotion. Every op verifies its operands and, where
// the result type follows from operands and attributes, infers it (ops whose
// shape is a parameter in JAX -- broadcast_in_dim, reshape, iota,
// convert_element_type, argmax -- carry it as their result type).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXOPS_TD
#define COTANGENT_DIALECTS_JX_JXOPS_TD

include "dialects/jx/JxDialect.td"
include "dialects/jx/JxAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Jx_UnaryOp<string mnemonic, Type type, string doc, list<Trait> traits = []>
    : Jx_Op<mnemonic, traits # [Pure, SameOperandsAndResultType, InferTypeOpInterface, Elementwise]> {
  let summary = "elementwise " # doc;
  let description = "Computes " # doc # " elementwise, as JAX's `" # mnemonic
    # "_p`.\n\n```mlir\n%1 = jx." # mnemonic # " %0 : tensor<5xf32>\n```";
  let arguments = (ins type:$operand);
  let results = (outs type:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Jx_NegOp : Jx_UnaryOp<"neg", Jx_NumericTensor, "negation"> { let hasFolder = 1; }
def Jx_SinOp : Jx_UnaryOp<"sin", Jx_FloatTensor, "sine">;
def Jx_CosOp : Jx_UnaryOp<"cos", Jx_FloatTensor, "cosine">;
def Jx_TanOp : Jx_UnaryOp<"tan", Jx_FloatTensor, "tangent">;
def Jx_ExpOp : Jx_UnaryOp<"exp", Jx_FloatTensor, "exponential">;
def Jx_LogOp : Jx_UnaryOp<"log", Jx_FloatTensor, "natural logarithm">;
def Jx_Log1pOp : Jx_UnaryOp<"log1p", Jx_FloatTensor, "log(1 + x)">;
def Jx_Expm1Op : Jx_UnaryOp<"expm1", Jx_FloatTensor, "exp(x) - 1">;
def Jx_ErfOp : Jx_UnaryOp<"erf", Jx_FloatTensor, "error function">;
def Jx_ErfcOp : Jx_UnaryOp<"erfc", Jx_FloatTensor, "complementary error function 1 - erf(x)">;
def Jx_TanhOp : Jx_UnaryOp<"tanh", Jx_FloatTensor, "hyperbolic tangent">;
def Jx_LogisticOp : Jx_UnaryOp<"logistic", Jx_FloatTensor, "logistic sigmoid 1 / (1 + exp(-x))">;
def Jx_SqrtOp : Jx_UnaryOp<"sqrt", Jx_FloatTensor, "square root">;
def Jx_RsqrtOp : Jx_UnaryOp<"rsqrt", Jx_FloatTensor, "reciprocal square root">;
def Jx_AbsOp : Jx_UnaryOp<"abs", Jx_NumericTensor, "absolute value">;
def Jx_SignOp : Jx_UnaryOp<"sign", Jx_NumericTensor, "sign (-1, 0 or 1)">;
def Jx_FloorOp : Jx_UnaryOp<"floor", Jx_FloatTensor, "floor">;
def Jx_CeilOp : Jx_UnaryOp<"ceil", Jx_FloatTensor, "ceiling">;
def Jx_NotOp : Jx_UnaryOp<"not", Jx_IntOrBoolTensor, "logical / bitwise not">;
def Jx_StopGradientOp : Jx_UnaryOp<"stop_gradient", Jx_Tensor,
    "identity whose cotangent is zero">;

def Jx_IntegerPowOp : Jx_Op<"integer_pow",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface, Elementwise]> {
  let summary = "elementwise power by a constant integer";
  let description = [{
    `x ** y` for an integer constant `y` (negative allowed for floats).

    ```mlir
    %1 = jx.integer_pow %0, y = 3 : tensor<5xf32>
    ```
  }];
  let arguments = (ins Jx_NumericTensor:$operand, Jx_I64Attr:$y);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = "$operand `,` `y` `=` $y attr-dict `:` type($result)";
  let hasVerifier = 1;
}

class Jx_BinaryOp<string mnemonic, Type type, string doc, list<Trait> traits = []>
    : Jx_Op<mnemonic, traits # [Pure, SameOperandsAndResultType, InferTypeOpInterface, Elementwise]> {
  let summary = "elementwise " # doc;
  let description = "Computes " # doc # " elementwise on operands of one type"
    # " (no implicit broadcasting), as JAX's `" # mnemonic # "_p`.\n\n```mlir\n"
    # "%2 = jx." # mnemonic # " %0, %1 : tensor<5xf32>\n```";
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Jx_AddOp : Jx_BinaryOp<"add", Jx_NumericTensor, "addition", [Commutative]>;
def Jx_SubOp : Jx_BinaryOp<"sub", Jx_NumericTensor, "subtraction">;
def Jx_MulOp : Jx_BinaryOp<"mul", Jx_NumericTensor, "multiplication", [Commutative]>;
def Jx_DivOp : Jx_BinaryOp<"div", Jx_NumericTensor, "division (truncating for integers)">;
def Jx_MaxOp : Jx_BinaryOp<"max", Jx_NumericTensor, "maximum", [Commutative]>;
def Jx_MinOp : Jx_BinaryOp<"min", Jx_NumericTensor, "minimum", [Commutative]>;
def Jx_PowOp : Jx_BinaryOp<"pow", Jx_FloatTensor, "power x ** y">;
def Jx_Atan2Op : Jx_BinaryOp<"atan2", Jx_FloatTensor, "two-argument arctangent atan2(x, y)">;
def Jx_RemOp : Jx_BinaryOp<"rem", Jx_NumericTensor, "remainder with the sign of the dividend">;
def Jx_AndOp : Jx_BinaryOp<"and", Jx_IntOrBoolTensor, "logical / bitwise and", [Commutative]>;
def Jx_OrOp : Jx_BinaryOp<"or", Jx_IntOrBoolTensor, "logical / bitwise or", [Commutative]>;
def Jx_XorOp : Jx_BinaryOp<"xor", Jx_IntOrBoolTensor, "logical / bitwise exclusive or", [Commutative]>;
def Jx_ShiftRightLogicalOp : Jx_BinaryOp<"shift_right_logical", Jx_IntTensor,
    "logical right shift (zeros shifted in; 0 for a shift of the bit width or more, or negative)">;

def Jx_Threefry2x32Op : Jx_Op<"threefry2x32",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface, Elementwise]> {
  let summary = "the threefry2x32 block cipher, elementwise";
  let description = [{
    Enciphers the counter words (x0, x1) under the key words (k0, k1) with
    20 rounds of Threefry-2x32, elementwise, as JAX's `threefry2x32_p`: the
    words are uint32 bit patterns held in i32 (jx has no unsigned types; the
    cipher's additions wrap and its shifts are logical, so the bits are
    JAX's). JAX's keys, splits, folds and random bits are built from it
    (tracer/Random.h); the cipher is defined once in dialects/jx/Threefry.h.

    ```mlir
    %y0, %y1 = jx.threefry2x32 %k0, %k1, %x0, %x1 : tensor<8xi32>
    ```
  }];
  let arguments = (ins Jx_I32Tensor:$k0, Jx_I32Tensor:$k1, Jx_I32Tensor:$x0, Jx_I32Tensor:$x1);
  let results = (outs Jx_I32Tensor:$y0, Jx_I32Tensor:$y1);
  let assemblyFormat = "$k0 `,` $k1 `,` $x0 `,` $x1 attr-dict `:` type($y0)";
}

class Jx_CompareOp<string mnemonic, string doc>
    : Jx_Op<mnemonic, [Pure, SameTypeOperands, InferTypeOpAdaptor, Elementwise]> {
  let summary = "elementwise comparison " # doc;
  let description = "Compares two operands of one type elementwise (" # doc
    # "); the result is a boolean tensor of their shape.\n\n```mlir\n"
    # "%2 = jx." # mnemonic # " %0, %1 : tensor<5xf32>\n```";
  let arguments = (ins Jx_Tensor:$lhs, Jx_Tensor:$rhs);
  let results = (outs Jx_BoolTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Jx_EqOp : Jx_CompareOp<"eq", "x == y">;
def Jx_NeOp : Jx_CompareOp<"ne", "x != y">;
def Jx_LtOp : Jx_CompareOp<"lt", "x < y">;
def Jx_LeOp : Jx_CompareOp<"le", "x <= y">;
def Jx_GtOp : Jx_CompareOp<"gt", "x > y">;
def Jx_GeOp : Jx_CompareOp<"ge", "x >= y">;

def Jx_SelectNOp : Jx_Op<"select_n", [Pure, InferTypeOpAdaptor, Jx_CheapToRecompute]> {
  let summary = "elementwise choice among cases";
  let description = [{
    Picks, elementwise, `cases[which]`. `which` is boolean (two cases: false
    picks the first) or i32, of the cases' shape or a scalar.

    ```mlir
    %3 = jx.select_n %p, %a, %b : tensor<5xi1>, tensor<5xf32>, tensor<5xf32>
    ```
  }];
  let arguments = (ins Jx_SelectorTensor:$which, Variadic<Jx_Tensor>:$cases);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = "$which `,` $cases attr-dict `:` type($which) `,` type($cases)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions, shapes and reductions
//===----------------------------------------------------------------------===//

def Jx_DotGeneralOp : Jx_Op<"dot_general", [Pure, InferTypeOpAdaptor], ["estimateFlops"]> {
  let summary = "generalized dot product with contracting and batch dimensions";
  let description = [{
    As JAX's `dot_general`: the result's dimensions are the batch dimensions,
    then the lhs's free dimensions, then the rhs's, each in order. Operands
    share an element type; `preferred_element_type` sets the result's.

    ```mlir
    %0 = jx.dot_general %W, %x, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Jx_NumericTensor:$lhs, Jx_NumericTensor:$rhs,
                   DenseI64ArrayAttr:$lhs_contracting_dimensions,
                   DenseI64ArrayAttr:$rhs_contracting_dimensions,
                   DenseI64ArrayAttr:$lhs_batch_dimensions,
                   DenseI64ArrayAttr:$rhs_batch_dimensions,
                   OptionalAttr<TypeAttr>:$preferred_element_type);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `contracting_dims` `=` $lhs_contracting_dimensions `x` $rhs_contracting_dimensions
    `,` `batch_dims` `=` $lhs_batch_dimensions `x` $rhs_batch_dimensions
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// True when the op has no batch dimensions (what the *_no_batch_dims policies test).
    bool hasNoBatchDims() { return getLhsBatchDimensions().empty(); }
  }];
}

def Jx_BroadcastInDimOp : Jx_Op<"broadcast_in_dim",
    [Pure, Jx_MovesData, Jx_CheapToRecompute, Jx_RebuiltFromOperand]> {
  let summary = "broadcast an operand into a larger shape";
  let description = [{
    Operand dimension `i` becomes result dimension `broadcast_dimensions[i]`
    (strictly increasing); its size must be 1 or the result's.

    ```mlir
    %1 = jx.broadcast_in_dim %b, dims = [1] : tensor<4xf32> -> tensor<5x4xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $broadcast_dimensions attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Jx_ReshapeOp : Jx_Op<"reshape",
    [Pure, Jx_ViewOfOperand, Jx_MovesData, Jx_CheapToRecompute, Jx_RebuiltFromOperand]> {
  let summary = "reshape to a shape of the same number of elements";
  let description = [{
    ```mlir
    %1 = jx.reshape %0 : tensor<20xf32> -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Jx_TransposeOp : Jx_Op<"transpose",
    [Pure, InferTypeOpAdaptor, Jx_MovesData, Jx_CheapToRecompute]> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`.

    ```mlir
    %1 = jx.transpose %0, perm = [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `perm` `=` $permutation attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Jx_SqueezeOp : Jx_Op<"squeeze", [Pure, InferTypeOpAdaptor, Jx_ViewOfOperand,
    Jx_MovesData, Jx_CheapToRecompute, Jx_RebuiltFromOperand]> {
  let summary = "remove dimensions of size 1";
  let description = [{
    ```mlir
    %1 = jx.squeeze %0, dims = [0] : tensor<1x5xf32> -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dimensions attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Jx_ExpandDimsOp : Jx_Op<"expand_dims", [Pure, InferTypeOpAdaptor, Jx_ViewOfOperand,
    Jx_MovesData, Jx_CheapToRecompute, Jx_RebuiltFromOperand]> {
  let summary = "insert dimensions of size 1";
  let description = [{
    `dimensions` are positions in the result.

    ```mlir
    %1 = jx.expand_dims %0, dims = [0] : tensor<5xf32> -> tensor<1x5xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dimensions attr-dict `:` type($operand) `->` type($result)
  }];
}

def Jx_ConcatenateOp : Jx_Op<"concatenate", [Pure, InferTypeOpAdaptor]> {
  let summary = "concatenate along one dimension";
  let description = [{
    ```mlir
    %2 = jx.concatenate(%0, %1) dim = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Variadic<Jx_Tensor>:$inputs, Jx_I64Attr:$dimension);
  let results = (outs Jx_Tensor:$result);
  // Parenthesized as scan's operands are: after `$inputs ,` the parser
  // expects another operand, so `%0, %1, dim = 0` could not be read back.
  let assemblyFormat = [{
    `(` $inputs `)` `dim` `=` $dimension attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasFolder = 1;
}

def Jx_SliceOp : Jx_Op<"slice",
    [Pure, InferTypeOpAdaptor, Jx_MayBeViewOfOperand, Jx_MovesData, Jx_CheapToRecompute]> {
  let summary = "static strided slice";
  let description = [{
    ```mlir
    %1 = jx.slice %0, start = [1], limit = [5], strides = [2] : tensor<6xf32> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, DenseI64ArrayAttr:$start_indices,
                   DenseI64ArrayAttr:$limit_indices, DenseI64ArrayAttr:$strides);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `start` `=` $start_indices `,` `limit` `=` $limit_indices `,` `strides` `=` $strides
    attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Jx_DynamicSliceOp : Jx_Op<"dynamic_slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "slice at run-time start indices";
  let description = [{
    One 0-d integer start index per dimension; starts are clamped so that the
    slice stays in bounds, as in JAX.

    ```mlir
    %2 = jx.dynamic_slice %0[%i], sizes = [2] : tensor<6xf32>, tensor<i32> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, Variadic<Jx_IndexScalar>:$start_indices,
                   DenseI64ArrayAttr:$slice_sizes);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` `,` `sizes` `=` $slice_sizes attr-dict `:`
    type($operand) (`,` type($start_indices)^)? `->` type($result)
  }];
}

def Jx_DynamicUpdateSliceOp : Jx_Op<"dynamic_update_slice",
    [Pure, AllTypesMatch<["operand", "result"]>, AllElementTypesMatch<["operand", "update"]>]> {
  let summary = "write a slice at run-time start indices";
  let description = [{
    Starts are clamped so that the update stays in bounds, as in JAX.

    ```mlir
    %2 = jx.dynamic_update_slice %0, %u[%i] : tensor<6xf32>, tensor<2xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, Jx_Tensor:$update,
                   Variadic<Jx_IndexScalar>:$start_indices);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $update `[` $start_indices `]` attr-dict `:`
    type($operand) `,` type($update) (`,` type($start_indices)^)?
  }];
  let hasVerifier = 1;
}

def Jx_TakeOp : Jx_Op<"take", [Pure, InferTypeOpAdaptor]> {
  let summary = "slices of a tensor at run-time indices along one axis (a gather)";
  let description = [{
    `result[..., k, ...] = operand[..., clamp(indices[k], 0, n - 1), ...]`
    along `axis` (of size n): the result is the operand with that axis
    replaced by the indices'. Out-of-range indices are clamped, as XLA's
    gather does (`jnp.take(..., mode="clip")`); the tracer's `np::take`
    first maps negative indices from the end and flattens indices of any
    shape to this 1-D form. Its VJP is `jx.scatter_add`.

    ```mlir
    %r = jx.take %table[%ids], axis = 0 : tensor<100x16xf32>, tensor<8xi32> -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, Jx_IndexVector:$indices, Jx_I64Attr:$axis);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `,` `axis` `=` $axis attr-dict `:`
    type($operand) `,` type($indices) `->` type($result)
  }];
}

def Jx_ScatterAddOp : Jx_Op<"scatter_add",
    [Pure, AllTypesMatch<["operand", "result"]>, AllElementTypesMatch<["operand", "updates"]>]> {
  let summary = "add slices into a tensor at run-time indices along one axis";
  let description = [{
    `result = operand`, then for each k: `result[..., clamp(indices[k], 0,
    n - 1), ...] += updates[..., k, ...]` along `axis`; repeated indices
    accumulate. `updates` is the operand with that axis replaced by the
    indices'. The transpose of `jx.take` (and its own: its cotangents are
    the result's for the operand and a `jx.take` of it for the updates).

    ```mlir
    %r = jx.scatter_add %zeros[%ids], %rows, axis = 0
           : tensor<100x16xf32>, tensor<8xi32>, tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Jx_NumericTensor:$operand, Jx_IndexVector:$indices,
                   Jx_NumericTensor:$updates, Jx_I64Attr:$axis);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `,` $updates `,` `axis` `=` $axis attr-dict `:`
    type($operand) `,` type($indices) `,` type($updates)
  }];
  let hasVerifier = 1;
}

def Jx_PadOp : Jx_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "pad with low, high (may be negative) and interior padding";
  let description = [{
    ```mlir
    %2 = jx.pad %0, %zero, low = [1], high = [2], interior = [1] : tensor<3xf32>, tensor<f32> -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, Jx_Tensor:$padding_value,
                   DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                   DenseI64ArrayAttr:$interior);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` $low `,` `high` `=` $high `,` `interior` `=` $interior
    attr-dict `:` type($operand) `,` type($padding_value) `->` type($result)
  }];
}

def Jx_IotaOp : Jx_Op<"iota", [Pure, Jx_CheapToRecompute], ["estimateFlops"]> {
  let summary = "0, 1, 2, ... along one dimension";
  let description = [{
    ```mlir
    %0 = jx.iota dim = 0 : tensor<5xi32>
    ```
  }];
  let arguments = (ins Jx_I64Attr:$dimension);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dimension attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Jx_BitcastConvertTypeOp : Jx_Op<"bitcast_convert_type", [Pure, Elementwise]> {
  let summary = "reinterpret each element's bits as another type of the same width";
  let description = [{
    As JAX's `bitcast_convert_type` between element types of one bit width
    (i32 <-> f32, i64 <-> f64); the shape stays.

    ```mlir
    %1 = jx.bitcast_convert_type %0 : tensor<5xi32> -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Jx_NumericTensor:$operand);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Jx_ConvertElementTypeOp : Jx_Op<"convert_element_type",
    [Pure, Jx_MovesData, Jx_CheapToRecompute]> {
  let summary = "convert to another element type";
  let description = [{
    ```mlir
    %1 = jx.convert_element_type %0 : tensor<5xf32> -> tensor<5xf64>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

class Jx_ReduceOp<string mnemonic, string doc>
    : Jx_Op<mnemonic, [Pure, InferTypeOpAdaptor], ["estimateFlops"]> {
  let summary = doc # " over the given axes";
  let description = "Reduces the given axes away (" # doc # ").\n\n```mlir\n"
    # "%1 = jx." # mnemonic # " %0, axes = [1] : tensor<5x4xf32> -> tensor<5xf32>\n```";
  let arguments = (ins Jx_NumericTensor:$operand, DenseI64ArrayAttr:$axes);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `,` `axes` `=` $axes attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Jx_ReduceSumOp : Jx_ReduceOp<"reduce_sum", "sum">;
def Jx_ReduceMaxOp : Jx_ReduceOp<"reduce_max", "maximum">;
def Jx_ReduceMinOp : Jx_ReduceOp<"reduce_min", "minimum">;
def Jx_ReduceProdOp : Jx_ReduceOp<"reduce_prod", "product">;

def Jx_ArgmaxOp : Jx_Op<"argmax", [Pure]> {
  let summary = "index of the maximum along one axis";
  let description = [{
    The axis is reduced away; the result's element type (i32 or i64) is the
    index dtype. Ties pick the first index.

    ```mlir
    %1 = jx.argmax %0, axis = 1 : tensor<5x4xf32> -> tensor<5xi32>
    ```
  }];
  let arguments = (ins Jx_NumericTensor:$operand, Jx_I64Attr:$axis);
  let results = (outs StaticShapeTensorOf<[I32, I64]>:$result);
  let assemblyFormat = "$operand `,` `axis` `=` $axis attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Jx_CumsumOp : Jx_Op<"cumsum", [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "inclusive cumulative sum along one axis";
  let description = [{
    ```mlir
    %1 = jx.cumsum %0, axis = 0 : tensor<5xf32>
    %2 = jx.cumsum %0, axis = 0 reverse : tensor<5xf32>
    ```
  }];
  let arguments = (ins Jx_NumericTensor:$operand, Jx_I64Attr:$axis, UnitAttr:$reverse);
  let results = (outs Jx_NumericTensor:$result);
  let assemblyFormat = "$operand `,` `axis` `=` $axis (`reverse` $reverse^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Jx_ConstantOp : Jx_Op<"constant", [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor";
  let description = [{
    ```mlir
    %0 = jx.constant dense<1.0> : tensor<5xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Jx_ScanOp : Jx_Op<"scan", [RecursiveMemoryEffects, IsolatedFromAbove, SingleBlock],
    ["estimateFlops", "estimateCommunicatedBytes"]> {
  let summary = "loop over the leading axis of xs, threading a carry";
  let description = [{
    As JAX's `scan_p`. Operands are `consts..., init_carry..., xs...`; the body's
    block arguments are `consts..., carry..., x...` where each `x` is one slice
    of an `xs` along its leading axis (of size `length`). The body yields
    `new_carry..., y...`; the op returns `final_carry..., ys...` with each
    `ys` stacking the `y`s along a new leading axis. With `reverse` the loop
    runs from the last slice to the first.

    With `checkpoint_lengths = array<i64: a, b, ...>` (their product is
    `length`), differentiation nests the loop as Flax's `remat_scan`: an
    outer scan of `a` checkpointed chunks, each a scan of `b` ..., so the
    forward keeps one carry per chunk and the backward recomputes each chunk
    once per level: [sqrt(L), sqrt(L)] keeps O(sqrt L) carries, L's prime
    factors O(log L).

    With `snapshots = s` (s >= 1), differentiation follows Griewank's
    binomial (revolve) schedule instead: the backward holds at most `s`
    saved carries (snapshots, the initial one included) and the tape of one
    iteration, and re-runs the fewest iterations any schedule with `s`
    snapshots can: r*L - C(s+r, s+1) for the least r with C(s+r, s) >= L
    (`docs/remat-optimal.md`).

    ```mlir
    %c, %ys = jx.scan (%w, %h0, %xs) length = 3, consts = 1, carry = 1
        : (tensor<4x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
    ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
      %0 = jx.dot_general %wi, %h, contracting_dims = [1] x [0], batch_dims = [] x []
             : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
      %1 = jx.add %0, %x : tensor<4xf32>
      jx.yield %1, %1 : tensor<4xf32>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Jx_Tensor>:$operands, Jx_I64Attr:$length,
                   Jx_I64Attr:$num_consts, Jx_I64Attr:$num_carry, UnitAttr:$reverse,
                   OptionalAttr<DenseI64ArrayAttr>:$checkpoint_lengths,
                   OptionalAttr<I64Attr>:$snapshots);
  let results = (outs Variadic<Jx_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $operands `)` `length` `=` $length `,` `consts` `=` $num_consts `,` `carry` `=` $num_carry
    (`reverse` $reverse^)? `:` functional-type($operands, $results) $body attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::OperandRange getConsts() { return getOperands().take_front(getNumConsts()); }
    ::mlir::OperandRange getInitCarry() {
      return getOperands().slice(getNumConsts(), getNumCarry());
    }
    ::mlir::OperandRange getXs() { return getOperands().drop_front(getNumConsts() + getNumCarry()); }
  }];
}

def Jx_CondOp : Jx_Op<"cond", [RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "run one of several branches, chosen by an index";
  let description = [{
    As JAX's `cond_p`: `index` (0-d i1 or i32; clamped into range) picks one
    branch; each branch takes the operands as block arguments and yields the
    results. With a boolean index, false picks branch 0 (JAX's `cond(p, t, f)`
    has branches `(f, t)`).

    ```mlir
    %r = jx.cond %p (%x) : tensor<i1>, (tensor<5xf32>) -> tensor<5xf32> {
    ^bb0(%a: tensor<5xf32>):
      %0 = jx.neg %a : tensor<5xf32>
      jx.yield %0 : tensor<5xf32>
    }, {
    ^bb0(%a: tensor<5xf32>):
      jx.yield %a : tensor<5xf32>
    }
    ```
  }];
  let arguments = (ins Jx_SelectorTensor:$index, Variadic<Jx_Tensor>:$inputs);
  let results = (outs Variadic<Jx_Tensor>:$results);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let assemblyFormat = [{
    $index `(` $inputs `)` `:` type($index) `,` functional-type($inputs, $results)
    $branches attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Jx_WhileOp : Jx_Op<"while", [RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "loop while a condition holds";
  let description = [{
    As JAX's `while_p`. Both regions take the carry as block arguments;
    `cond` yields a 0-d i1, `body` yields the next carry. Not
    reverse-differentiable (the VJP pass says so), as in JAX.

    ```mlir
    %r = jx.while (%i0) : (tensor<i32>) -> tensor<i32> cond {
    ^bb0(%i: tensor<i32>):
      %n = jx.constant dense<10> : tensor<i32>
      %c = jx.lt %i, %n : tensor<i32>
      jx.yield %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i32>):
      %one = jx.constant dense<1> : tensor<i32>
      %j = jx.add %i, %one : tensor<i32>
      jx.yield %j : tensor<i32>
    }
    ```
  }];
  let arguments = (ins Variadic<Jx_Tensor>:$operands);
  let results = (outs Variadic<Jx_Tensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $operands `)` `:` functional-type($operands, $results) `cond` $cond `do` $body
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Differentiation structure
//===----------------------------------------------------------------------===//

def Jx_RematOp : Jx_Op<"remat", [RecursiveMemoryEffects, IsolatedFromAbove, SingleBlock]> {
  let summary = "a region differentiated under a rematerialization policy";
  let description = [{
    As `jax.checkpoint`: the region computes its results from its operands
    (its block arguments). Under differentiation only the operands and what
    `policy` allows may be saved for the backward pass; the rest is
    recomputed there. With `prevent_cse` (the default, as in JAX) the
    recomputation is guarded by `jx.optimization_barrier` so CSE cannot
    merge it back into the forward computation.

    ```mlir
    %r = jx.remat (%W, %x) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<5xf32>
        policy = #jx.policy<nothing_saveable> {
    ^bb0(%w: tensor<5x4xf32>, %v: tensor<4xf32>):
      %0 = jx.dot_general %w, %v, contracting_dims = [1] x [0], batch_dims = [] x []
             : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
      %1 = jx.sin %0 : tensor<5xf32>
      jx.yield %1 : tensor<5xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Jx_Tensor>:$operands, Jx_PolicyAttr:$policy,
                   DefaultValuedAttr<BoolAttr, "true">:$prevent_cse);
  let results = (outs Variadic<Jx_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $operands `)` `:` functional-type($operands, $results) `policy` `=` qualified($policy)
    $body attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Jx_CheckpointNameOp : Jx_Op<"checkpoint_name",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface, Jx_ViewOfOperand, Jx_MovesData,
     Jx_CheapToRecompute]> {
  let summary = "identity that names a value for remat policies";
  let description = [{
    As `jax.ad_checkpoint.checkpoint_name`. Named-value policies
    (`save_only_these_names`, ...) decide on these ops' results.

    ```mlir
    %1 = jx.checkpoint_name %0, "layer0_output" : tensor<4xf32>
    ```
  }];
  let arguments = (ins Jx_Tensor:$operand, StrAttr:$name);
  let results = (outs Jx_Tensor:$result);
  let assemblyFormat = "$operand `,` $name attr-dict `:` type($result)";
}

def Jx_OptimizationBarrierOp : Jx_Op<"optimization_barrier",
    [InferTypeOpAdaptor, Jx_ViewOfOperand, Jx_MovesData]> {
  let summary = "identity that optimizations cannot see through";
  let description = [{
    Returns its operands. It declares no memory effects interface, so CSE,
    DCE and folding treat it as opaque: a computation that starts from its
    results cannot be merged with one that starts from its operands. The
    remat pass uses it to keep recomputation from being CSE'd away.

    ```mlir
    %a2, %b2 = jx.optimization_barrier %a, %b : tensor<5xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<Jx_Tensor>:$operands);
  let results = (outs Variadic<Jx_Tensor>:$results);
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
}

def Jx_YieldOp : Jx_Op<"yield", [Pure, ReturnLike, Terminator,
    ParentOneOf<["ScanOp", "CondOp", "WhileOp", "RematOp"]>]> {
  let summary = "terminates a jx region, yielding its values";
  let description = [{
    ```mlir
    jx.yield %0, %1 : tensor<5xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<Jx_Tensor>:$operands);
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

include "dialects/jx/JxCollectiveOps.td"

//===----------------------------------------------------------------------===//
// Composites: fused attention and the fused softmax cross-entropy
//===----------------------------------------------------------------------===//

include "dialects/jx/JxAttentionOps.td"
include "dialects/jx/JxCrossEntropyOps.td"

#endif // COTANGENT_DIALECTS_JX_JXOPS_TD
