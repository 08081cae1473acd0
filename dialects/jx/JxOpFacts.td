//===- JxOpFacts.td - what the passes need to know of an op -*- tablegen -*-===//
//
// Facts about jx ops that the VJP, the minimum cut, the memory budget and the
// frontier read, declared once on the ops instead of in a list per pass:
// whether the lowered result is a view of an operand's buffer, whether the op
// only moves data, whether the backward may cheaply run it again, and what it
// costs (CostOpInterface, on every jx op), and what an op is made of
// (CompositeOpInterface). dialects/jx/JxOpFacts.h asks them.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXOPFACTS_TD
#define COTANGENT_DIALECTS_JX_JXOPFACTS_TD

include "mlir/IR/OpBase.td"

class Jx_OpFact<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::jx::OpTrait";
}

// Lowered, the result is a view of an operand's buffer (no copy, no bytes of
// its own): saving it keeps that operand's buffer.
def Jx_ViewOfOperand : Jx_OpFact<"ViewOfOperand">;
// Lowered, the result may be a view of its operand's buffer or a copy.
def Jx_MayBeViewOfOperand : Jx_OpFact<"MayBeViewOfOperand">;
// Moves or relabels data without arithmetic: no FLOPs.
def Jx_MovesData : Jx_OpFact<"MovesData">;
// Cheap for the backward to run again from its operands (elementwise and
// constant-like ops are too, by their own traits).
def Jx_CheapToRecompute : Jx_OpFact<"CheapToRecompute">;
// Its operand holds the same values in no more bytes: the VJP rebuilds it in
// the backward rather than saving it (JAX saves a mean, not its broadcast).
def Jx_RebuiltFromOperand : Jx_OpFact<"RebuiltFromOperand">;

def Jx_CostOpInterface : OpInterface<"CostOpInterface"> {
  let description = [{
    What running a jx op costs, as the remat passes count it (FLOPs: 2 per
    multiply-add of a dot, 1 per element of elementwise ops and reductions,
    0 for data movement; loops times their trip count), and what it
    communicates: the bytes one rank sends or receives in a ring.
  }];
  let cppNamespace = "::mlir::jx";
  let methods = [
    InterfaceMethod<"The FLOPs one run performs, nested regions included (by "
                    "default 1 per result element, 0 for data movement and constants, "
                    "a region op's body: once, or its dearer branch).",
      "int64_t", "estimateFlops", (ins), "",
      [{ return ::mlir::jx::detail::defaultFlops($_op.getOperation()); }]>,
    InterfaceMethod<"The bytes one rank sends or receives, nested regions included.",
      "int64_t", "estimateCommunicatedBytes", (ins), "",
      [{ return ::mlir::jx::detail::regionCost($_op.getOperation(), ::mlir::jx::CostKind::CommunicatedBytes); }]>,
  ];
}

def Jx_CompositeOpInterface : OpInterface<"CompositeOpInterface"> {
  let description = [{
    An op defined by other jx ops (fused attention, the fused softmax
    cross-entropy): kept whole where a runtime has a kernel for it or where
    the whole is cheaper to reason about (its VJP, its residuals), written
    out by --jx-expand-composites everywhere else. The error bounds of the
    interpreter's comparisons are its expansion's.
  }];
  let cppNamespace = "::mlir::jx";
  let methods = [
    InterfaceMethod<"The op's results computed by other jx ops, built at `b`'s "
                    "insertion point from the op's own operands.",
      "::llvm::SmallVector<::mlir::Value>", "expand", (ins "::mlir::OpBuilder &":$b)>,
  ];
}

#endif // COTANGENT_DIALECTS_JX_JXOPFACTS_TD
