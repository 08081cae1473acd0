// Verifier and shape-rule errors of the shape ops, iota and
// convert_element_type.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @broadcast_element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.broadcast_in_dim' op element type changes from 'f32' to 'f64'}}
  %0 = jx.broadcast_in_dim %x, dims = [1] : tensor<4xf32> -> tensor<5x4xf64>
  return
}

// -----

func.func @broadcast_dims_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.broadcast_in_dim' op broadcast_dimensions has 2 entries, expected the operand's rank 1}}
  %0 = jx.broadcast_in_dim %x, dims = [0, 1] : tensor<4xf32> -> tensor<5x4xf32>
  return
}

// -----

func.func @broadcast_dim_out_of_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.broadcast_in_dim' op broadcast dimension 2 is out of range for rank 2}}
  %0 = jx.broadcast_in_dim %x, dims = [2] : tensor<4xf32> -> tensor<5x4xf32>
  return
}

// -----

func.func @broadcast_dim_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.broadcast_in_dim' op broadcast dimension -1 is out of range for rank 2}}
  %0 = jx.broadcast_in_dim %x, dims = [-1] : tensor<4xf32> -> tensor<5x4xf32>
  return
}

// -----

func.func @broadcast_dims_not_increasing(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'jx.broadcast_in_dim' op broadcast_dimensions must be strictly increasing, got [1, 0]}}
  %0 = jx.broadcast_in_dim %x, dims = [1, 0] : tensor<4x5xf32> -> tensor<5x4xf32>
  return
}

// -----

func.func @broadcast_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{'jx.broadcast_in_dim' op operand dimension 0 of size 3 cannot broadcast to result dimension 1 of size 4}}
  %0 = jx.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<5x4xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.reshape' op element type changes from 'f32' to 'i32'}}
  %0 = jx.reshape %x : tensor<4xf32> -> tensor<2x2xi32>
  return
}

// -----

func.func @reshape_count(%x: tensor<20xf32>) {
  // expected-error @+1 {{'jx.reshape' op cannot reshape 'tensor<20xf32>' (20 elements) to 'tensor<4x4xf32>' (16 elements)}}
  %0 = jx.reshape %x : tensor<20xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_perm_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{permutation has 1 entries, expected the operand's rank 2}}
  // expected-error @+1 {{'jx.transpose' op failed to infer returned types}}
  %0 = jx.transpose %x, perm = [0] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @transpose_perm_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{permutation dimension 0 is repeated}}
  // expected-error @+1 {{'jx.transpose' op failed to infer returned types}}
  %0 = jx.transpose %x, perm = [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{permutation dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{'jx.transpose' op failed to infer returned types}}
  %0 = jx.transpose %x, perm = [2, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'jx.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'jx.transpose' op failed to infer returned types}}
  %0 = jx.transpose %x, perm = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @squeeze_size(%x: tensor<1x5xf32>) {
  // expected-error @+2 {{cannot squeeze dimension 1 of size 5}}
  // expected-error @+1 {{'jx.squeeze' op failed to infer returned types}}
  %0 = jx.squeeze %x, dims = [1] : tensor<1x5xf32> -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_out_of_range(%x: tensor<1x5xf32>) {
  // expected-error @+2 {{squeezed dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{'jx.squeeze' op failed to infer returned types}}
  %0 = jx.squeeze %x, dims = [2] : tensor<1x5xf32> -> tensor<1x5xf32>
  return
}

// -----

func.func @squeeze_repeated(%x: tensor<1x5xf32>) {
  // expected-error @+2 {{squeezed dimension 0 is repeated}}
  // expected-error @+1 {{'jx.squeeze' op failed to infer returned types}}
  %0 = jx.squeeze %x, dims = [0, 0] : tensor<1x5xf32> -> tensor<5xf32>
  return
}

// -----

// expand_dims' dimensions are positions in the result.
func.func @expand_out_of_range(%x: tensor<5xf32>) {
  // expected-error @+2 {{inserted dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{'jx.expand_dims' op failed to infer returned types}}
  %0 = jx.expand_dims %x, dims = [2] : tensor<5xf32> -> tensor<5x1xf32>
  return
}

// -----

func.func @expand_repeated(%x: tensor<5xf32>) {
  // expected-error @+2 {{inserted dimension 0 is repeated}}
  // expected-error @+1 {{'jx.expand_dims' op failed to infer returned types}}
  %0 = jx.expand_dims %x, dims = [0, 0] : tensor<5xf32> -> tensor<1x1x5xf32>
  return
}

// -----

func.func @expand_result(%x: tensor<5xf32>) {
  // expected-error @+2 {{'jx.expand_dims' op inferred type(s) 'tensor<5x1xf32>' are incompatible with return type(s) of operation 'tensor<1x5xf32>'}}
  // expected-error @+1 {{'jx.expand_dims' op failed to infer returned types}}
  %0 = jx.expand_dims %x, dims = [1] : tensor<5xf32> -> tensor<1x5xf32>
  return
}

// -----

func.func @concatenate_dim(%a: tensor<2xf32>) {
  // expected-error @+2 {{concatenation dimension 1 is out of range for rank 1}}
  // expected-error @+1 {{'jx.concatenate' op failed to infer returned types}}
  %0 = jx.concatenate(%a, %a) dim = 1 : tensor<2xf32>, tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @concatenate_negative_dim(%a: tensor<2xf32>) {
  // expected-error @+2 {{concatenation dimension -1 is out of range for rank 1}}
  // expected-error @+1 {{'jx.concatenate' op failed to infer returned types}}
  %0 = jx.concatenate(%a, %a) dim = -1 : tensor<2xf32>, tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @concatenate_element_type(%a: tensor<2xf32>, %b: tensor<3xf64>) {
  // expected-error @+2 {{input 1 has type 'tensor<3xf64>', incompatible with 'tensor<2xf32>'}}
  // expected-error @+1 {{'jx.concatenate' op failed to infer returned types}}
  %0 = jx.concatenate(%a, %b) dim = 0 : tensor<2xf32>, tensor<3xf64> -> tensor<5xf32>
  return
}

// -----

func.func @concatenate_rank(%a: tensor<2xf32>, %b: tensor<2x1xf32>) {
  // expected-error @+2 {{input 1 has type 'tensor<2x1xf32>', incompatible with 'tensor<2xf32>'}}
  // expected-error @+1 {{'jx.concatenate' op failed to infer returned types}}
  %0 = jx.concatenate(%a, %b) dim = 0 : tensor<2xf32>, tensor<2x1xf32> -> tensor<4xf32>
  return
}

// -----

func.func @concatenate_other_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{input 1 differs in dimension 1 outside the concatenation dimension}}
  // expected-error @+1 {{'jx.concatenate' op failed to infer returned types}}
  %0 = jx.concatenate(%a, %b) dim = 0 : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concatenate_nothing() {
  // expected-error @+2 {{expected at least one input}}
  // expected-error @+1 {{'jx.concatenate' op failed to infer returned types}}
  %0 = "jx.concatenate"() {dimension = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @slice_entries(%x: tensor<6x7xf32>) {
  // expected-error @+2 {{start, limit and strides must have one entry per dimension (2)}}
  // expected-error @+1 {{'jx.slice' op failed to infer returned types}}
  %0 = jx.slice %x, start = [0, 0], limit = [6, 7], strides = [1] : tensor<6x7xf32> -> tensor<6x7xf32>
  return
}

// -----

func.func @slice_limit(%x: tensor<6xf32>) {
  // expected-error @+2 {{slice [1, 7) is out of bounds for dimension 0 of size 6}}
  // expected-error @+1 {{'jx.slice' op failed to infer returned types}}
  %0 = jx.slice %x, start = [1], limit = [7], strides = [1] : tensor<6xf32> -> tensor<6xf32>
  return
}

// -----

func.func @slice_start_negative(%x: tensor<6xf32>) {
  // expected-error @+2 {{slice [-1, 3) is out of bounds for dimension 0 of size 6}}
  // expected-error @+1 {{'jx.slice' op failed to infer returned types}}
  %0 = jx.slice %x, start = [-1], limit = [3], strides = [1] : tensor<6xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_start_after_limit(%x: tensor<6xf32>) {
  // expected-error @+2 {{slice [4, 2) is out of bounds for dimension 0 of size 6}}
  // expected-error @+1 {{'jx.slice' op failed to infer returned types}}
  %0 = jx.slice %x, start = [4], limit = [2], strides = [1] : tensor<6xf32> -> tensor<0xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<6xf32>) {
  // expected-error @+2 {{stride 0 of dimension 0 must be positive}}
  // expected-error @+1 {{'jx.slice' op failed to infer returned types}}
  %0 = jx.slice %x, start = [0], limit = [6], strides = [0] : tensor<6xf32> -> tensor<6xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<6xf32>) {
  // expected-error @+2 {{'jx.slice' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'jx.slice' op failed to infer returned types}}
  %0 = jx.slice %x, start = [1], limit = [6], strides = [2] : tensor<6xf32> -> tensor<2xf32>
  return
}

// -----

func.func @dynamic_slice_indices(%x: tensor<6x4xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{expected one start index and one slice size per dimension (2)}}
  // expected-error @+1 {{'jx.dynamic_slice' op failed to infer returned types}}
  %0 = jx.dynamic_slice %x[%i], sizes = [2, 2] : tensor<6x4xf32>, tensor<i32> -> tensor<2x2xf32>
  return
}

// -----

func.func @dynamic_slice_sizes(%x: tensor<6x4xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{expected one start index and one slice size per dimension (2)}}
  // expected-error @+1 {{'jx.dynamic_slice' op failed to infer returned types}}
  %0 = jx.dynamic_slice %x[%i, %i], sizes = [2] : tensor<6x4xf32>, tensor<i32>, tensor<i32> -> tensor<2xf32>
  return
}

// -----

func.func @dynamic_slice_too_big(%x: tensor<6x4xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{slice size 5 does not fit dimension 1 of size 4}}
  // expected-error @+1 {{'jx.dynamic_slice' op failed to infer returned types}}
  %0 = jx.dynamic_slice %x[%i, %i], sizes = [2, 5] : tensor<6x4xf32>, tensor<i32>, tensor<i32> -> tensor<2x5xf32>
  return
}

// -----

func.func @dynamic_slice_negative(%x: tensor<6x4xf32>, %i: tensor<i32>) {
  // expected-error @+2 {{slice size -1 does not fit dimension 0 of size 6}}
  // expected-error @+1 {{'jx.dynamic_slice' op failed to infer returned types}}
  %0 = jx.dynamic_slice %x[%i, %i], sizes = [-1, 2] : tensor<6x4xf32>, tensor<i32>, tensor<i32> -> tensor<2x2xf32>
  return
}

// -----

// Start indices are 0-d i32 or i64 tensors.
func.func @dynamic_slice_index_rank(%x: tensor<6xf32>, %i: tensor<1xi32>) {
  // expected-error @+1 {{'jx.dynamic_slice' op operand #1 must be variadic of 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<1xi32>'}}
  %0 = jx.dynamic_slice %x[%i], sizes = [2] : tensor<6xf32>, tensor<1xi32> -> tensor<2xf32>
  return
}

// -----

func.func @dynamic_slice_index_float(%x: tensor<6xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{'jx.dynamic_slice' op operand #1 must be variadic of 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %0 = jx.dynamic_slice %x[%i], sizes = [2] : tensor<6xf32>, tensor<f32> -> tensor<2xf32>
  return
}

// -----

func.func @update_rank(%x: tensor<6x4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{'jx.dynamic_update_slice' op update rank 1 differs from operand rank 2}}
  %0 = jx.dynamic_update_slice %x, %u[%i, %i] : tensor<6x4xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>
  return
}

// -----

func.func @update_indices(%x: tensor<6x4xf32>, %u: tensor<2x4xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{'jx.dynamic_update_slice' op expected 2 start indices, got 1}}
  %0 = jx.dynamic_update_slice %x, %u[%i] : tensor<6x4xf32>, tensor<2x4xf32>, tensor<i32>
  return
}

// -----

func.func @update_too_big(%x: tensor<6x4xf32>, %u: tensor<2x5xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{'jx.dynamic_update_slice' op update dimension 1 of size 5 exceeds the operand's size 4}}
  %0 = jx.dynamic_update_slice %x, %u[%i, %i] : tensor<6x4xf32>, tensor<2x5xf32>, tensor<i32>, tensor<i32>
  return
}

// -----

func.func @update_element_type(%x: tensor<6xf32>, %u: tensor<2xf64>, %i: tensor<i32>) {
  // expected-error @+1 {{'jx.dynamic_update_slice' op failed to verify that all of {operand, update} have same element type}}
  %0 = jx.dynamic_update_slice %x, %u[%i] : tensor<6xf32>, tensor<2xf64>, tensor<i32>
  return
}

// -----

func.func @update_result_type(%x: tensor<6xf32>, %u: tensor<2xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{'jx.dynamic_update_slice' op failed to verify that all of {operand, result} have same type}}
  %0 = "jx.dynamic_update_slice"(%x, %u, %i) : (tensor<6xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
  return
}

// -----

func.func @pad_value_rank(%x: tensor<3xf32>, %v: tensor<1xf32>) {
  // expected-error @+2 {{padding value must be a 0-d tensor of 'f32', got 'tensor<1xf32>'}}
  // expected-error @+1 {{'jx.pad' op failed to infer returned types}}
  %0 = jx.pad %x, %v, low = [1], high = [1], interior = [0] : tensor<3xf32>, tensor<1xf32> -> tensor<5xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<3xf32>, %v: tensor<i32>) {
  // expected-error @+2 {{padding value must be a 0-d tensor of 'f32', got 'tensor<i32>'}}
  // expected-error @+1 {{'jx.pad' op failed to infer returned types}}
  %0 = jx.pad %x, %v, low = [1], high = [1], interior = [0] : tensor<3xf32>, tensor<i32> -> tensor<5xf32>
  return
}

// -----

func.func @pad_entries(%x: tensor<3x2xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{low, high and interior must have one entry per dimension (2)}}
  // expected-error @+1 {{'jx.pad' op failed to infer returned types}}
  %0 = jx.pad %x, %v, low = [1, 0], high = [1], interior = [0, 0] : tensor<3x2xf32>, tensor<f32> -> tensor<5x2xf32>
  return
}

// -----

func.func @pad_interior_negative(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{interior padding -1 of dimension 0 must not be negative}}
  // expected-error @+1 {{'jx.pad' op failed to infer returned types}}
  %0 = jx.pad %x, %v, low = [0], high = [0], interior = [-1] : tensor<3xf32>, tensor<f32> -> tensor<1xf32>
  return
}

// -----

func.func @pad_negative_size(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{padding makes dimension 0 negative (-1)}}
  // expected-error @+1 {{'jx.pad' op failed to infer returned types}}
  %0 = jx.pad %x, %v, low = [-2], high = [-2], interior = [0] : tensor<3xf32>, tensor<f32> -> tensor<0xf32>
  return
}

// -----

func.func @pad_result(%x: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jx.pad' op inferred type(s) 'tensor<7xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'jx.pad' op failed to infer returned types}}
  %0 = jx.pad %x, %v, low = [1], high = [1], interior = [1] : tensor<3xf32>, tensor<f32> -> tensor<5xf32>
  return
}

// -----

func.func @iota_dim() {
  // expected-error @+1 {{'jx.iota' op iota dimension 1 is out of range for 'tensor<5xi32>'}}
  %0 = jx.iota dim = 1 : tensor<5xi32>
  return
}

// -----

func.func @iota_negative_dim() {
  // expected-error @+1 {{'jx.iota' op iota dimension -1 is out of range for 'tensor<5xi32>'}}
  %0 = jx.iota dim = -1 : tensor<5xi32>
  return
}

// -----

func.func @iota_scalar() {
  // expected-error @+1 {{'jx.iota' op iota dimension 0 is out of range for 'tensor<i32>'}}
  %0 = jx.iota dim = 0 : tensor<i32>
  return
}

// -----

func.func @convert_shape(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.convert_element_type' op shape changes from 'tensor<5xf32>' to 'tensor<4xf64>'}}
  %0 = jx.convert_element_type %x : tensor<5xf32> -> tensor<4xf64>
  return
}
