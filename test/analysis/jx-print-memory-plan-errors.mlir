// RUN: not cotangent-opt %s --jx-print-memory-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPLIT
// RUN: not cotangent-opt %s --jx-vjp --jx-print-memory-plan=format=yaml -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not cotangent-opt %s --jx-vjp --jx-print-memory-plan=target=tpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not cotangent-opt %s --jx-vjp --jx-print-memory-plan=output=/nonexistent/dir/plan.txt -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUTPUT

// NOSPLIT: error: --jx-print-memory-plan: no forward function in the module; run --jx-vjp first
// A word outside an option's values is refused by the option parser, which
// then lists them (the options are enums in ODS).
// FORMAT:  for the --format option: Cannot find option named 'yaml'!
// FORMAT:  error: bad options in '--jx-print-memory-plan=format=yaml'
// FORMAT:  =text
// FORMAT:  =json
// TARGET:  for the --target option: Cannot find option named 'tpu'!
// TARGET:  =cpu
// TARGET:  =cuda
// OUTPUT:  error: --jx-print-memory-plan: cannot open output file '/nonexistent/dir/plan.txt'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = jx.sin %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
