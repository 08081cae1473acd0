//===- TanhBlock.h - tanh(Dense(x)), the block remat_scan repeats -*- C++ -*-===//
//
// A Flax @nn.compact block of one Dense (at the carry's width) and a tanh,
// named Block as in Flax so that remat_scan names it "Remat_scanBlock_0".
// Used by examples/deep_remat_scan.cpp and test/unit/api/FlaxParityTest.cpp
// (against test/jax/gen_flax_reference.py's Block).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_EXAMPLES_TANHBLOCK_H
#define COTANGENT_EXAMPLES_TANHBLOCK_H

#include "tracer/Layers.h"
#include "tracer/Numpy.h"

namespace examples {

struct Block {
  int64_t features;

  cotangent::nn::Dict<cotangent::nn::Dict<cotangent::interp::Tensor>>
  init(cotangent::nn::Scope &scope, int64_t in) const {
    cotangent::nn::Scope dense = scope.child("Dense_0");
    return {{"Dense_0", cotangent::nn::Dense{features}.init(dense, in)}};
  }
  cotangent::Tensor operator()(const cotangent::nn::Dict<cotangent::nn::Dict<cotangent::Tensor>> &p,
                               const cotangent::Tensor &x) const {
    return cotangent::np::tanh(cotangent::nn::Dense{features}(p.at("Dense_0"), x));
  }
};

} // namespace examples

#endif // COTANGENT_EXAMPLES_TANHBLOCK_H
