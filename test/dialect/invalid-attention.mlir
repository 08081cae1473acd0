// RUN: cotangent-opt %s -split-input-file -verify-diagnostics
// Fused attention's verifier: [B, T, N, H] operands of one float type, key
// and value alike and sharing the query's batch, heads and head size, at
// least one key; the backward's output, doutput and logsumexp typed as the
// forward gives them.

func.func @f(%q: tensor<8x4x16xf32>) {
  // expected-error @+1 {{query must be [batch, seq, heads, head size], got 'tensor<8x4x16xf32>'}}
  %o, %l = jx.dot_product_attention %q, %q, %q, scale = 1.0 : tensor<8x4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x4x16xbf16>) {
  // expected-error @+1 {{query, key and value must have one element type}}
  %o, %l = jx.dot_product_attention %q, %k, %k, scale = 1.0 : tensor<1x8x4x16xf32>, tensor<1x8x4x16xbf16>, tensor<1x8x4x16xbf16>
  return
}

// -----

func.func @f(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x4x16xf32>, %v: tensor<1x7x4x16xf32>) {
  // expected-error @+1 {{key and value must have one shape, got 'tensor<1x8x4x16xf32>' and 'tensor<1x7x4x16xf32>'}}
  %o, %l = jx.dot_product_attention %q, %k, %v, scale = 1.0 : tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x7x4x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>) {
  // expected-error @+1 {{key must share the query's batch, heads and head size}}
  %o, %l = jx.dot_product_attention %q, %k, %k, scale = 1.0 : tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x8x4x16xf32>, %k: tensor<1x0x4x16xf32>) {
  // expected-error @+1 {{attention needs at least one key}}
  %o, %l = jx.dot_product_attention %q, %k, %k, scale = 1.0 : tensor<1x8x4x16xf32>, tensor<1x0x4x16xf32>, tensor<1x0x4x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x8x4x16xi32>) {
  // expected-error @+1 {{'jx.dot_product_attention' op operand #0 must be statically shaped tensor of}}
  %o, %l = jx.dot_product_attention %q, %q, %q, scale = 1.0 : tensor<1x8x4x16xi32>, tensor<1x8x4x16xi32>, tensor<1x8x4x16xi32>
  return
}

// -----

func.func @f(%q: tensor<1x8x4x16xf32>, %lse: tensor<1x8x4xf32>) {
  // expected-error @+1 {{logsumexp must be 'tensor<1x4x8xf32>', got 'tensor<1x8x4xf32>'}}
  %dq, %dk, %dv = jx.dot_product_attention_grad %q, %q, %q, %q, %lse, %q, scale = 1.0 : tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4xf32>, tensor<1x8x4x16xf32>
  return
}

// -----

func.func @f(%q: tensor<1x8x4x16xf32>, %o: tensor<1x8x4x8xf32>, %lse: tensor<1x4x8xf32>) {
  // expected-error @+1 {{output and doutput must be the query's type 'tensor<1x8x4x16xf32>', got 'tensor<1x8x4x8xf32>' and 'tensor<1x8x4x16xf32>'}}
  %dq, %dk, %dv = jx.dot_product_attention_grad %q, %q, %q, %o, %lse, %q, scale = 1.0 : tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x8xf32>, tensor<1x4x8xf32>, tensor<1x8x4x16xf32>
  return
}
