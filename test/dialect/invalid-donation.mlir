// RUN: cotangent-opt %s -split-input-file -verify-diagnostics
// The jx.donated_to contract: on a function argument, naming one result of
// its type, no result named twice. Reported at the function.

// A donated argument names the result that may be written over its buffer.
// expected-error @+1 {{attribute 'jx.donated_to' on argument #0 names result #1 but @f has 1 results}}
func.func private @f(tensor<4xf32> {jx.donated_to = 1 : i64}) -> tensor<4xf32>

// -----

// expected-error @+1 {{attribute 'jx.donated_to' on argument #0 names result #-1 but @f has 1 results}}
func.func private @f(tensor<4xf32> {jx.donated_to = -1 : i64}) -> tensor<4xf32>

// -----

// expected-error @+1 {{attribute 'jx.donated_to' on argument #0 must be a result index (i64), got "y"}}
func.func private @f(tensor<4xf32> {jx.donated_to = "y"}) -> tensor<4xf32>

// -----

// expected-error @+1 {{attribute 'jx.donated_to' on argument #0 names result #0 of type 'tensor<4xf64>', not the argument's 'tensor<4xf32>'}}
func.func private @f(tensor<4xf32> {jx.donated_to = 0 : i64}) -> tensor<4xf64>

// -----

// expected-error @+1 {{attribute 'jx.donated_to' on argument #1 names result #0, which argument #0 is donated to already}}
func.func private @f(tensor<4xf32> {jx.donated_to = 0 : i64}, tensor<4xf32> {jx.donated_to = 0 : i64}) -> tensor<4xf32>

// -----

// expected-error @+1 {{result #0 has an unknown jx attribute 'jx.donated_to'; the jx attributes of results are jx.result_name and jx.residual}}
func.func private @f(tensor<4xf32>) -> (tensor<4xf32> {jx.donated_to = 0 : i64})

// -----

// expected-error @+1 {{attribute 'jx.donated_to' belongs on a function argument or result, not on an op}}
func.func private @f() attributes {jx.donated_to = 0 : i64}
