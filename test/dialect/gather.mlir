// jx.take and jx.scatter_add print, parse and print again, through the
// generic form too; take infers its result type.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --mlir-print-op-generic | cotangent-opt | FileCheck %s

// CHECK-LABEL: func.func @embed
// CHECK-NEXT: %[[R:.+]] = jx.take %{{.*}}[%{{.*}}], axis = 0 : tensor<10x4xf32>, tensor<6xi32> -> tensor<6x4xf32>
// CHECK-NEXT: %[[C:.+]] = jx.take %{{.*}}[%{{.*}}], axis = 1 : tensor<10x4xf32>, tensor<3xi64> -> tensor<10x3xf32>
// CHECK-NEXT: %[[S:.+]] = jx.scatter_add %{{.*}}[%{{.*}}], %[[R]], axis = 0 : tensor<10x4xf32>, tensor<6xi32>, tensor<6x4xf32>
// CHECK-NEXT: %[[I:.+]] = jx.scatter_add %{{.*}}[%{{.*}}], %{{.*}}, axis = 0 : tensor<5xi32>, tensor<6xi32>, tensor<6xi32>
func.func @embed(%table: tensor<10x4xf32>, %ids: tensor<6xi32>, %cols: tensor<3xi64>,
                 %counts: tensor<5xi32>, %ones: tensor<6xi32>)
    -> (tensor<10x4xf32>, tensor<10x3xf32>, tensor<5xi32>) {
  %0 = jx.take %table[%ids], axis = 0 : tensor<10x4xf32>, tensor<6xi32> -> tensor<6x4xf32>
  %1 = jx.take %table[%cols], axis = 1 : tensor<10x4xf32>, tensor<3xi64> -> tensor<10x3xf32>
  %2 = jx.scatter_add %table[%ids], %0, axis = 0 : tensor<10x4xf32>, tensor<6xi32>, tensor<6x4xf32>
  %3 = jx.scatter_add %counts[%ids], %ones, axis = 0 : tensor<5xi32>, tensor<6xi32>, tensor<6xi32>
  return %2, %1, %3 : tensor<10x4xf32>, tensor<10x3xf32>, tensor<5xi32>
}
