// RUN: not cotangent-opt %s --jx-print-memory-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPLIT
// RUN: not cotangent-opt %s --jx-vjp --jx-print-memory-plan=format=yaml -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not cotangent-opt %s --jx-vjp --jx-print-memory-plan=target=tpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not cotangent-opt %s --jx-vjp --jx-print-memory-plan=output=/nonexistent/dir/plan.txt -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUTPUT

// NOSPLIT: error: --jx-print-memory-plan: no forward function in the module; run --jx-vjp first
// FORMAT:  error: --jx-print-memory-plan: unknown format 'yaml'; expected text or json
// TARGET:  error: --jx-print-memory-plan: unknown target 'tpu'; expected cpu or cuda
// OUTPUT:  error: --jx-print-memory-plan: cannot open output file '/nonexistent/dir/plan.txt'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = jx.sin %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
