//===- SeedMlp.h - the Flax exercise's MLP, as a C++ module -----*- C++ -*-===//
//
// The seed exercise's module, Dense(features) -> relu -> Dense(features),
// written as a Flax @nn.compact module is: init makes each Dense in a child
// scope of Flax's default name, the call applies them. The relu output is
// named "hidden" for name-based policies. Used by
// examples/flax_seed_exercise.cpp and test/unit/api/FlaxParityTest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_EXAMPLES_SEEDMLP_H
#define COTANGENT_EXAMPLES_SEEDMLP_H

#include "tracer/Checkpoint.h"
#include "tracer/Layers.h"
#include "tracer/Nn.h"

namespace examples {

struct MLP {
  int64_t features;

  cotangent::nn::Dict<cotangent::nn::Dict<cotangent::interp::Tensor>>
  init(cotangent::nn::Scope &scope, int64_t in) const {
    cotangent::nn::Dict<cotangent::nn::Dict<cotangent::interp::Tensor>> params;
    for (int64_t width : {in, features}) {
      std::string name = scope.next_name("Dense");
      cotangent::nn::Scope child = scope.child(name);
      params.emplace(name, cotangent::nn::Dense{features}.init(child, width));
    }
    return params;
  }

  cotangent::Tensor operator()(const cotangent::nn::Dict<cotangent::nn::Dict<cotangent::Tensor>> &params,
                               cotangent::Tensor x) const {
    x = cotangent::nn::Dense{features}(params.at("Dense_0"), x);
    x = cotangent::checkpoint_name(cotangent::nn::relu(x), "hidden");
    return cotangent::nn::Dense{features}(params.at("Dense_1"), x);
  }
};

} // namespace examples

#endif // COTANGENT_EXAMPLES_SEEDMLP_H
