// The README's built-in example parses, verifies and round-trips.
// RUN: cotangent-opt %src_root/examples/seed-g-f.mlir --verify-roundtrip | FileCheck %s
// CHECK: func.func @f
// CHECK: jx.remat
// CHECK-SAME: policy = #jx.policy<nothing_saveable>
