//===- JxDialect.td - The jx dialect: JAX's primitives on tensors -*- tablegen -*-===//
//
// The dialect declaration and the base classes its ops and attributes use.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXDIALECT_TD
#define COTANGENT_DIALECTS_JX_JXDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "dialects/jx/JxOpFacts.td"

def Jx_Dialect : Dialect {
  let name = "jx";
  let cppNamespace = "::mlir::jx";
  let summary = "JAX's primitives as ops on ranked tensors, plus remat structure.";
  let description = [{
    `jx` mirrors a jaxpr: each op is one JAX primitive on ranked tensors of
    f32, f64, f16, bf16, i32, i64 or i1 (0-d tensors are scalars). There is
    no implicit broadcasting or type promotion: the tracer makes both
    explicit, as `jax.make_jaxpr` does. On top of the primitives the dialect
    carries the structure automatic differentiation needs: `jx.remat`
    (a region differentiated under a rematerialization policy),
    `jx.checkpoint_name` and `jx.optimization_barrier`.

    ```mlir
    func.func @g(%W: tensor<5x4xf32>, %x: tensor<4xf32>) -> tensor<5xf32> {
      %0 = jx.dot_general %W, %x, contracting_dims = [1] x [0], batch_dims = [] x []
             : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
      %1 = jx.sin %0 : tensor<5xf32>
      return %1 : tensor<5xf32>
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;

  // The attributes jx puts on other dialects' ops (func.func, its arguments
  // and results) and on its own ops, each declared once here. The dialect
  // verifies every `jx.*` attribute (JxContract.cpp) and rejects unknown ones.
  let discardableAttrs = (ins
    // On @f_fwd / @f_bwd: the two halves of a split (JxSplit.h).
    "::mlir::jx::ForwardAttr":$forward,
    "::mlir::jx::BackwardAttr":$backward,
    // On residual arguments of @f_bwd and residual results of @f_fwd.
    "::mlir::jx::ResidualAttr":$residual,
    // On ops flattened out of jx.remat regions, until --jx-remat ran.
    "::mlir::jx::RematScopeAttr":$remat_scope,
    // On the outer jx.scan of an expanded checkpoint_lengths schedule: the lengths.
    "::mlir::DenseI64ArrayAttr":$scan_schedule,
    // On function arguments and results: the names the tracer gave them.
    "::mlir::StringAttr":$arg_name,
    "::mlir::StringAttr":$result_name,
    // On a function argument the caller donates (jit's donate, JAX's
    // donate_argnums): the result that may be written over its buffer.
    "::mlir::IntegerAttr":$donated_to
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

// Every jx op tells its cost (JxOpFacts.td); `costMethods` names the
// CostOpInterface methods the op defines itself.
class Jx_Op<string mnemonic, list<Trait> traits = [], list<string> costMethods = []>
    : Op<Jx_Dialect, mnemonic,
         traits # [DeclareOpInterfaceMethods<Jx_CostOpInterface, costMethods>]>;

class Jx_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Jx_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// An i64 attribute read as int64_t. Upstream I64Attr reads as uint64_t, so a
// negative axis or exponent would pass every `< 0` check.
def Jx_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                               "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

def Jx_FloatElement : AnyTypeOf<[F32, F64, F16, BF16]>;
def Jx_IntElement : AnyTypeOf<[I32, I64]>;
def Jx_Element : AnyTypeOf<[F32, F64, F16, BF16, I32, I64, I1]>;

// Shapes are static: the shape rules and the byte counts of the runtime
// rely on every dimension being known.
def Jx_Tensor : StaticShapeTensorOf<[F32, F64, F16, BF16, I32, I64, I1]>;
def Jx_FloatTensor : StaticShapeTensorOf<[F32, F64, F16, BF16]>;
def Jx_NumericTensor : StaticShapeTensorOf<[F32, F64, F16, BF16, I32, I64]>;
def Jx_IntOrBoolTensor : StaticShapeTensorOf<[I32, I64, I1]>;
def Jx_BoolTensor : StaticShapeTensorOf<[I1]>;
def Jx_IntTensor : StaticShapeTensorOf<[I32, I64]>;
def Jx_I32Tensor : StaticShapeTensorOf<[I32]>;
def Jx_IndexScalar : 0DTensorOf<[I32, I64]>;
def Jx_IndexVector : TypeConstraint<And<[StaticShapeTensorOf<[I32, I64]>.predicate,
                                         CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 1">]>,
                                    "1-D static tensor of 32/64-bit integer values">;
def Jx_SelectorTensor : StaticShapeTensorOf<[I1, I32]>;

#endif // COTANGENT_DIALECTS_JX_JXDIALECT_TD
