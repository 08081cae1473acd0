//===- flax_module.cpp - lifting a module type with nn::checkpoint --------===//
//
// A Flax-style MLP (Dense -> relu -> Dense) as a C++ struct, and the same
// module lifted with nn::checkpoint<MLP> (compiler/Module.h) under several
// policies. The lifted module's forward output equals the plain module's bit
// for bit (both run through the reference interpreter); what differs is what
// the forward pass saves once the summed output is differentiated, and the
// gradients again agree to the bit.
//
// The CHECK lines at the end are the expected output (ctest -L examples).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tracer/Module.h"

using namespace cotangent;
using examples::section;

namespace {

template <class T>
using Dict = std::map<std::string, T>;

/// Dense(features): x . kernel + bias, params {"bias", "kernel"}.
struct Dense {
  int64_t features;

  Dict<Spec> param_specs(int64_t in) const {
    return {{"kernel", f32({in, features})}, {"bias", f32({features})}};
  }
  Tensor operator()(const Dict<Tensor> &params, Tensor x) const {
    return np::dot(x, params.at("kernel")) + params.at("bias");
  }
};

/// MLP(features): Dense -> relu -> Dense; the hidden activation is named
/// "hidden" so that name-based policies can pick it.
struct MLP {
  int64_t features;

  Dict<Dict<Spec>> param_specs(int64_t in) const {
    return {{"Dense_0", Dense{features}.param_specs(in)},
            {"Dense_1", Dense{features}.param_specs(features)}};
  }
  Tensor operator()(const Dict<Dict<Tensor>> &params, Tensor x) const {
    x = Dense{features}(params.at("Dense_0"), x);
    x = checkpoint_name(np::relu(x), "hidden");
    return Dense{features}(params.at("Dense_1"), x);
  }
};

constexpr int64_t D = 6, F = 4;

/// A module's apply, traced in `ctx` on its parameter specs and x[D].
template <class Module>
Traced apply(mlir::MLIRContext &ctx, const Module &model) {
  auto fn = [&model](Dict<Dict<Tensor>> params, Tensor x) { return model(params, x); };
  return trace({.name = "apply", .arg_names = {"params", "x"}, .context = &ctx}, fn,
               model.param_specs(D), f32({D}));
}

/// sum(model(params, x)), split into forward and backward.
template <class Module>
Split loss(mlir::MLIRContext &ctx, const Module &model) {
  auto fn = [&model](Dict<Dict<Tensor>> params, Tensor x) { return np::sum(model(params, x)); };
  return vjp({.name = "loss", .arg_names = {"params", "x"}, .context = &ctx}, fn,
             model.param_specs(D), f32({D}));
}

/// "init": one deterministic tensor per argument of `fn` (params, then x).
std::vector<interp::Tensor> init(mlir::MLIRContext &ctx, mlir::func::FuncOp fn, uint64_t seed) {
  std::vector<interp::Tensor> args;
  for (mlir::Type t : fn.getArgumentTypes()) {
    auto shape = mlir::cast<mlir::RankedTensorType>(t).getShape();
    args.push_back(examples::filled(ctx, {shape.begin(), shape.end()}, seed++));
  }
  return args;
}

std::vector<interp::Tensor> run(mlir::func::FuncOp fn, const std::vector<interp::Tensor> &args) {
  auto out = interp::run(fn, args);
  if (mlir::failed(out))
    throw TraceError("the interpreter failed on @" + fn.getSymName().str());
  return *out;
}

} // namespace

int main() {
  mlir::MLIRContext ctx;
  MLP mlp{F};
  // Lift the class, then instantiate: nn.checkpoint(MLP)(features=F).
  auto CkptMLP = nn::checkpoint<MLP>();
  nn::Checkpointed<MLP> ckpt = CkptMLP(F);
  auto dots = nn::checkpoint<MLP>({.policy = policies::dots_saveable()})(F);
  auto hidden = nn::remat<MLP>({.policy = policies::save_only_these_names({"hidden"})})(F);
  // Double wrapping is legal and changes nothing: the outer remat already
  // recomputes everything inside.
  auto twice = nn::checkpoint<nn::Checkpointed<MLP>>()(ckpt);

  section("the lifted module's apply");
  std::cout << apply(ctx, ckpt).jaxpr();

  section("forward output");
  Traced plainApply = apply(ctx, mlp);
  std::vector<interp::Tensor> args = init(ctx, plainApply.func(), 40);
  std::vector<interp::Tensor> out = run(plainApply.func(), args);
  std::cout << "MLP(features=" << F << ") " << examples::typeOf(out[0]) << " "
            << examples::head(out[0]) << "\n";
  auto compare = [&](const std::string &what, const auto &model) {
    Traced t = apply(ctx, model);
    std::cout << what << ": "
              << (examples::sameBits(run(t.func(), args), out) ? "identical" : "DIFFERENT") << "\n";
  };
  compare("checkpoint<MLP>", ckpt);
  compare("checkpoint<MLP>(dots_saveable)", dots);
  compare("remat<MLP>(save_only_these_names('hidden'))", hidden);
  compare("checkpoint<Checkpointed<MLP>>", twice);

  section("residuals of sum(MLP)");
  std::cout << loss(ctx, mlp).print_saved_residuals();
  section("residuals of sum(checkpoint<MLP>)");
  std::cout << loss(ctx, ckpt).print_saved_residuals();
  section("residuals of sum(checkpoint<MLP>(dots_saveable))");
  std::cout << loss(ctx, dots).print_saved_residuals();
  section("residuals of sum(remat<MLP>(save_only_these_names('hidden')))");
  std::cout << loss(ctx, hidden).print_saved_residuals();
  section("residuals of sum(checkpoint<Checkpointed<MLP>>)");
  std::cout << loss(ctx, twice).print_saved_residuals();

  section("gradients");
  Split base = loss(ctx, mlp);
  std::vector<interp::Tensor> grads = evaluate(base, base.value_and_grad(), args);
  std::cout << "loss " << examples::head(grads[0]) << "\n";
  auto same = [&](const std::string &what, const auto &model) {
    Split s = loss(ctx, model);
    std::cout << what << ": "
              << (examples::sameBits(evaluate(s, s.value_and_grad(), args), grads) ? "identical"
                                                                                  : "DIFFERENT")
              << "\n";
  };
  same("checkpoint<MLP>", ckpt);
  same("checkpoint<MLP>(dots_saveable)", dots);
  same("remat<MLP>(save_only_these_names('hidden'))", hidden);
  same("checkpoint<Checkpointed<MLP>>", twice);
  return 0;
}

// The expected output, checked by FileCheck (ctest -L examples):
// CHECK-LABEL: == the lifted module's apply ==
// CHECK-NEXT: { lambda ; a:f32[4] b:f32[6,4] c:f32[4] d:f32[4,4] e:f32[6]. let
// CHECK-NEXT:     f:f32[4] = checkpoint[
// CHECK-LABEL: == forward output ==
// CHECK-NEXT: MLP(features=4) f32[4] [0.3025{{[0-9]*}}, -0.6022{{[0-9]*}}, 1.2453{{[0-9]*}}, 0.9960{{[0-9]*}}]
// CHECK-NEXT: checkpoint<MLP>: identical
// CHECK-NEXT: checkpoint<MLP>(dots_saveable): identical
// CHECK-NEXT: remat<MLP>(save_only_these_names('hidden')): identical
// CHECK-NEXT: checkpoint<Checkpointed<MLP>>: identical
// CHECK-LABEL: == residuals of sum(MLP) ==
// CHECK-NEXT: f32[6,4] from the argument params['Dense_0']['kernel']
// CHECK-NEXT: f32[4,4] from the argument params['Dense_1']['kernel']
// CHECK-NEXT: f32[6] from the argument x
// CHECK-NEXT: f32[4] output of select_n from {{.*}}flax_module.cpp:{{[0-9]+}} (loss)
// CHECK-NEXT: f32[4] named 'hidden' from {{.*}}flax_module.cpp:{{[0-9]+}} (loss)
// CHECK-NEXT: total: 5 residuals, 216 bytes
// CHECK-LABEL: == residuals of sum(checkpoint<MLP>) ==
// CHECK-NEXT: f32[4] from the argument params['Dense_0']['bias']
// CHECK-NEXT: f32[6,4] from the argument params['Dense_0']['kernel']
// CHECK-NEXT: f32[4,4] from the argument params['Dense_1']['kernel']
// CHECK-NEXT: f32[6] from the argument x
// CHECK-NEXT: total: 4 residuals, 200 bytes
// CHECK-LABEL: == residuals of sum(checkpoint<MLP>(dots_saveable)) ==
// CHECK-NEXT: f32[4] from the argument params['Dense_0']['bias']
// CHECK-NEXT: f32[6,4] from the argument params['Dense_0']['kernel']
// CHECK-NEXT: f32[4,4] from the argument params['Dense_1']['kernel']
// CHECK-NEXT: f32[6] from the argument x
// CHECK-NEXT: f32[4] output of dot_general from {{.*}}flax_module.cpp:{{[0-9]+}} (loss)
// CHECK-NEXT: total: 5 residuals, 216 bytes
// CHECK-LABEL: == residuals of sum(remat<MLP>(save_only_these_names('hidden'))) ==
// CHECK-NEXT: f32[4] from the argument params['Dense_0']['bias']
// CHECK-NEXT: f32[6,4] from the argument params['Dense_0']['kernel']
// CHECK-NEXT: f32[4,4] from the argument params['Dense_1']['kernel']
// CHECK-NEXT: f32[6] from the argument x
// CHECK-NEXT: f32[4] named 'hidden' from {{.*}}flax_module.cpp:{{[0-9]+}} (loss)
// CHECK-NEXT: total: 5 residuals, 216 bytes
// CHECK-LABEL: == residuals of sum(checkpoint<Checkpointed<MLP>>) ==
// CHECK-NEXT: f32[4] from the argument params['Dense_0']['bias']
// CHECK-NEXT: f32[6,4] from the argument params['Dense_0']['kernel']
// CHECK-NEXT: f32[4,4] from the argument params['Dense_1']['kernel']
// CHECK-NEXT: f32[6] from the argument x
// CHECK-NEXT: total: 4 residuals, 200 bytes
// CHECK-LABEL: == gradients ==
// CHECK-NEXT: loss [1.9417{{[0-9]*}}]
// CHECK-NEXT: checkpoint<MLP>: identical
// CHECK-NEXT: checkpoint<MLP>(dots_saveable): identical
// CHECK-NEXT: remat<MLP>(save_only_these_names('hidden')): identical
// CHECK-NEXT: checkpoint<Checkpointed<MLP>>: identical
