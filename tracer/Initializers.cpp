//===- Initializers.cpp - Flax's parameter initialization -----------------===//

#include "tracer/Initializers.h"
#include "tracer/Errors.h"

#include "llvm/Support/SHA1.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

namespace cotangent::nn {

Scope Scope::child(const std::string &name) const {
  Scope out = *this;
  out.path_.push_back(name);
  out.names_.clear();
  return out;
}

void Scope::scanIterations(const std::vector<int64_t> &lengths,
                           const std::function<void(Scope &, size_t)> &init) const {
  std::vector<random::Key> keys = {root_};
  for (int64_t length : lengths) {
    std::vector<random::Key> next;
    for (const random::Key &k : keys)
      for (const random::Key &s : random::split(k, static_cast<size_t>(length)))
        next.push_back(s);
    keys = std::move(next);
  }
  auto run = [&](size_t i) {
    Scope s = *this;
    s.root_ = keys[i];
    s.names_.clear();
    init(s, i);
  };
  // One trace's worth of keys per path, then the counters as Flax's last
  // trace starts them: (2^depth - 1) traces on.
  Counters before = *counters_;
  run(0);
  Counters start = before;
  uint64_t traces = (uint64_t{1} << lengths.size()) - 1;
  for (const auto &[path, count] : *counters_)
    start[path] = before[path] + traces * (count - before[path]);
  for (size_t i = 0; i < keys.size(); ++i) {
    *counters_ = start;
    run(i);
  }
}

uint32_t fold_data(const std::vector<std::string> &path, uint64_t counter) {
  // The names then the counter as its shortest big-endian bytes, no
  // separators (flax_fix_rng_separator off); the digest's first four bytes
  // big-endian.
  std::vector<uint8_t> data;
  for (const std::string &name : path)
    data.insert(data.end(), name.begin(), name.end());
  std::vector<uint8_t> bytes;
  for (uint64_t v = counter; v; v >>= 8)
    bytes.insert(bytes.begin(), static_cast<uint8_t>(v & 0xff));
  data.insert(data.end(), bytes.begin(), bytes.end());
  std::array<uint8_t, 20> digest = llvm::SHA1::hash(data);
  return (uint32_t{digest[0]} << 24) | (uint32_t{digest[1]} << 16) | (uint32_t{digest[2]} << 8) |
         uint32_t{digest[3]};
}

Tensor make_rng(const Tensor &root, const std::vector<std::string> &path, uint64_t counter,
                SrcLoc loc) {
  return random::fold_in(root, static_cast<int64_t>(fold_data(path, counter)), loc);
}

random::Key Scope::make_rng() {
  // Flax folds the module path and the counter into the root key.
  return random::fold_in(root_, fold_data(path_, ++(*counters_)[path_]));
}

std::string Scope::next_name(const std::string &type) {
  return type + "_" + std::to_string(names_[type]++);
}

namespace initializers {

namespace {

interp::Tensor filled(mlir::MLIRContext &ctx, const Shape &shape, double value) {
  auto type = mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx));
  return interp::Tensor::fromDoubles(type, std::vector<double>(type.getNumElements(), value));
}

/// Every element times `factor`, in float32 as JAX multiplies.
interp::Tensor scaled(const interp::Tensor &t, float factor) {
  std::vector<double> values(static_cast<size_t>(t.getNumElements()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(t.getDouble(static_cast<int64_t>(i))) * factor;
  return interp::Tensor::fromDoubles(t.getType(), values);
}

int64_t axisOf(int axis, size_t rank, const Shape &shape) {
  int64_t a = axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
  if (a < 0 || a >= static_cast<int64_t>(rank))
    throw TraceError("variance_scaling: axis " + std::to_string(axis) + " is out of range for " +
                     shapeString(DType::F32, shape));
  return a;
}

} // namespace

Initializer zeros() { return constant(0.0); }
Initializer ones() { return constant(1.0); }

Initializer constant(double value) {
  return [value](mlir::MLIRContext &ctx, random::Key, const Shape &shape) {
    return filled(ctx, shape, value);
  };
}

Initializer normal(double stddev) {
  return [stddev](mlir::MLIRContext &ctx, random::Key key, const Shape &shape) {
    return scaled(random::normal(ctx, key, shape), static_cast<float>(stddev));
  };
}

Initializer uniform(double scale) {
  return [scale](mlir::MLIRContext &ctx, random::Key key, const Shape &shape) {
    return scaled(random::uniform(ctx, key, shape), static_cast<float>(scale));
  };
}

Initializer variance_scaling(double scale, FanMode mode, Distribution distribution, int in_axis,
                             int out_axis) {
  return [=](mlir::MLIRContext &ctx, random::Key key, const Shape &shape) {
    if (shape.size() < 2)
      throw TraceError("variance_scaling: needs a shape of rank 2 or more, got " +
                       shapeString(DType::F32, shape));
    double size = 1;
    for (int64_t d : shape)
      size *= static_cast<double>(d);
    double in = static_cast<double>(shape[axisOf(in_axis, shape.size(), shape)]);
    double out = static_cast<double>(shape[axisOf(out_axis, shape.size(), shape)]);
    double receptive = size / in / out;
    double fanIn = in * receptive, fanOut = out * receptive;
    double denominator = mode == FanMode::FanIn    ? fanIn
                         : mode == FanMode::FanOut ? fanOut
                                                   : (fanIn + fanOut) / 2;
    // JAX: variance as a float32 array, the rest in float32.
    auto variance = static_cast<float>(scale / denominator);
    switch (distribution) {
    case Distribution::TruncatedNormal: {
      // The stddev of a standard normal truncated to (-2, 2).
      float stddev = std::sqrt(variance) / 0.87962566103423978f;
      return scaled(random::truncated_normal(ctx, key, -2.0, 2.0, shape), stddev);
    }
    case Distribution::Normal:
      return scaled(random::normal(ctx, key, shape), std::sqrt(variance));
    case Distribution::Uniform:
      return scaled(random::uniform(ctx, key, shape, -1.0, 1.0), std::sqrt(3.0f * variance));
    }
    throw TraceError("variance_scaling: unknown distribution");
  };
}

Initializer lecun_normal() {
  return variance_scaling(1.0, FanMode::FanIn, Distribution::TruncatedNormal);
}
Initializer lecun_uniform() { return variance_scaling(1.0, FanMode::FanIn, Distribution::Uniform); }
Initializer glorot_normal() {
  return variance_scaling(1.0, FanMode::FanAvg, Distribution::TruncatedNormal);
}
Initializer glorot_uniform() {
  return variance_scaling(1.0, FanMode::FanAvg, Distribution::Uniform);
}
Initializer he_normal() {
  return variance_scaling(2.0, FanMode::FanIn, Distribution::TruncatedNormal);
}
Initializer he_uniform() { return variance_scaling(2.0, FanMode::FanIn, Distribution::Uniform); }

} // namespace initializers

} // namespace cotangent::nn
