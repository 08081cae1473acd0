//===- RandomPrograms.h - random jx programs with nested remat -*- C++ -*-===//
//
// The generator of the remat property tests: random differentiable ops on
// random shapes (f64), random (nested) jx.remat regions whose policies are
// placeholders $P<k>, random checkpoint names. Shared by the autodiff
// property tests, the memory plan's prediction-vs-measurement test and the
// valid-programs fuzzer, which drives it with the fuzzer's bytes instead of
// a seeded engine (BasicGenerator<ByteSource>): a mutated byte changes one
// choice, not the whole program.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_SUPPORT_RANDOMPROGRAMS_H
#define COTANGENT_TEST_SUPPORT_RANDOMPROGRAMS_H

#include "test/support/ProgramText.h"

#include <algorithm>
#include <cstdint>

#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace randomprograms {

using cotangent::testing::subst;
using cotangent::testing::tensorType;

struct Op {
  std::vector<int> operands;
  std::vector<std::string> shapes; ///< one per result
  /// Emits the op given operand and result names (may emit helper constants).
  std::function<std::string(const std::vector<std::string> &, const std::vector<std::string> &)>
      emit;
};

struct Interval {
  int start, end; ///< op indices [start, end)
  int policySlot;
  bool preventCse;
};

struct Program {
  int numArgs = 0;
  std::vector<std::string> shapes; ///< per value: args first, then op results in order
  std::vector<int> definer;        ///< per value: op index, -1 for arguments
  std::vector<Op> ops;
  std::vector<int> opFirstValue;
  std::vector<int> returned;
  std::vector<Interval> regions;
};

inline std::string ty(const std::string &shape) { return tensorType(shape); }

/// A uniform random bit generator over a byte string: each call takes the
/// next byte, then zeros once the bytes are used up.
class ByteSource {
public:
  using result_type = uint8_t;
  ByteSource(const uint8_t *data, size_t size) : data(data), size(size) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 255; }
  result_type operator()() { return at < size ? data[at++] : 0; }
  bool exhausted() const { return at >= size; }

private:
  const uint8_t *data;
  size_t size, at = 0;
};

/// Values used in the interval and defined before it.
inline std::vector<int> regionInputs(const Program &p, const Interval &r);
/// Values defined in the interval and used after it or returned.
inline std::vector<int> regionOutputs(const Program &p, const Interval &r);

template <typename Engine>
class BasicGenerator {
public:
  /// The engine's constructor arguments: a seed, or a ByteSource's bytes.
  template <typename... Args>
  explicit BasicGenerator(Args &&...args) : rng(std::forward<Args>(args)...) {}

  /// Also emit jx.scan and jx.cond (the fuzzer does; the seeded property
  /// tests keep the programs their seeds have always given).
  bool controlFlow = false;

  Program generate() {
    Program p;
    int numArgs = uniform(1, 4);
    const std::vector<std::string> argShapes = {"", "4", "4x4", "2x4x4", "4"};
    for (int i = 0; i < numArgs; ++i)
      addValue(p, argShapes[uniform(0, argShapes.size() - 1)], -1);
    p.numArgs = numArgs;
    int numOps = uniform(6, 22);
    while (static_cast<int>(p.ops.size()) < numOps)
      addRandomOp(p);
    // Return the last value and maybe another one.
    p.returned.push_back(static_cast<int>(p.shapes.size()) - 1);
    if (chance(0.5)) {
      int other = uniform(p.numArgs, p.shapes.size() - 2);
      if (other >= p.numArgs)
        p.returned.push_back(other);
    }
    placeRegions(p);
    return p;
  }

private:
  Engine rng;

  // A ByteSource spends one byte per choice (the standard distributions
  // would draw several), so each fuzzed byte maps to one decision.
  static constexpr bool kBytes = std::is_same_v<Engine, ByteSource>;
  int uniform(int lo, int hi) {
    hi = std::max(lo, hi);
    if constexpr (kBytes)
      return lo + rng() % (hi - lo + 1);
    else
      return std::uniform_int_distribution<int>(lo, hi)(rng);
  }
  bool chance(double p) {
    if constexpr (kBytes)
      return rng() < p * 256;
    else
      return std::bernoulli_distribution(p)(rng);
  }
  template <typename T>
  const T &pick(const std::vector<T> &v) { return v[uniform(0, v.size() - 1)]; }

  int addValue(Program &p, const std::string &shape, int op) {
    p.shapes.push_back(shape);
    p.definer.push_back(op);
    return static_cast<int>(p.shapes.size()) - 1;
  }

  /// A value of `shape` other than `avoid` if possible, preferring recent
  /// ones; -1 if there is none.
  int valueOf(const Program &p, const std::string &shape, int avoid = -1) {
    std::vector<int> candidates;
    for (int v = 0; v < static_cast<int>(p.shapes.size()); ++v)
      if (p.shapes[v] == shape && v != avoid)
        candidates.push_back(v);
    if (candidates.empty() && avoid >= 0 && p.shapes[avoid] == shape)
      return avoid;
    if (candidates.empty())
      return -1;
    if (chance(0.6))
      return candidates.back();
    return pick(candidates);
  }

  void push(Program &p, std::vector<int> operands, std::vector<std::string> shapes,
            decltype(Op::emit) emit) {
    int index = static_cast<int>(p.ops.size());
    p.opFirstValue.push_back(static_cast<int>(p.shapes.size()));
    for (auto &s : shapes)
      addValue(p, s, index);
    p.ops.push_back(Op{std::move(operands), std::move(shapes), std::move(emit)});
  }

  void addRandomOp(Program &p) {
    int kind = uniform(0, controlFlow ? 17 : 15);
    if (kind == 16)
      return addScan(p);
    if (kind == 17)
      return addCond(p);
    int x = uniform(0, p.shapes.size() - 1);
    if (chance(0.5))
      x = static_cast<int>(p.shapes.size()) - 1;
    std::string s = p.shapes[x];
    std::string t = ty(s);
    switch (kind) {
    case 0:
    case 1: { // unary
      std::string op = pick<std::string>({"sin", "cos", "tanh", "logistic", "neg", "abs", "sin"});
      push(p, {x}, {s}, [op, t](auto &in, auto &out) {
        return out[0] + " = jx." + op + " " + in[0] + " : " + t;
      });
      return;
    }
    case 2: { // integer_pow / bounded exp
      bool square = chance(0.5);
      push(p, {x}, {s}, [square, t](auto &in, auto &out) {
        if (square)
          return out[0] + " = jx.integer_pow " + in[0] + ", y = 2 : " + t;
        return out[0] + "_t = jx.tanh " + in[0] + " : " + t + "\n" + out[0] + " = jx.exp " +
               out[0] + "_t : " + t;
      });
      return;
    }
    case 3:
    case 4: { // binary on one shape
      int y = valueOf(p, s, x);
      std::string op = pick<std::string>({"add", "sub", "mul", "max", "min", "mul"});
      push(p, {x, y}, {s}, [op, t](auto &in, auto &out) {
        return out[0] + " = jx." + op + " " + in[0] + ", " + in[1] + " : " + t;
      });
      return;
    }
    case 5:
    case 6: { // dot_general
      if (s == "4x4") {
        bool vec = chance(0.5) && valueOf(p, "4") >= 0;
        int y = vec ? valueOf(p, "4") : valueOf(p, "4x4");
        std::string r = vec ? "4" : "4x4";
        push(p, {x, y}, {r}, [vec, r](auto &in, auto &out) {
          return out[0] + " = jx.dot_general " + in[0] + ", " + in[1] +
                 ", contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf64>, " +
                 ty(vec ? "4" : "4x4") + " -> " + ty(r);
        });
      } else if (s == "2x4x4") {
        int y = valueOf(p, "2x4x4", x);
        push(p, {x, y}, {"2x4x4"}, [](auto &in, auto &out) {
          return out[0] + " = jx.dot_general " + in[0] + ", " + in[1] +
                 ", contracting_dims = [2] x [1], batch_dims = [0] x [0] : tensor<2x4x4xf64>, "
                 "tensor<2x4x4xf64> -> tensor<2x4x4xf64>";
        });
      } else if (s == "4") {
        int y = valueOf(p, "4x4");
        if (y < 0) { // inner product
          int z = valueOf(p, "4");
          push(p, {x, z}, {""}, [](auto &in, auto &out) {
            return out[0] + " = jx.dot_general " + in[0] + ", " + in[1] +
                   ", contracting_dims = [0] x [0], batch_dims = [] x [] : tensor<4xf64>, "
                   "tensor<4xf64> -> tensor<f64>";
          });
        } else {
          push(p, {y, x}, {"4"}, [](auto &in, auto &out) {
            return out[0] + " = jx.dot_general " + in[0] + ", " + in[1] +
                   ", contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf64>, "
                   "tensor<4xf64> -> tensor<4xf64>";
          });
        }
      } else {
        addBroadcast(p, x);
      }
      return;
    }
    case 7:
      addBroadcast(p, x);
      return;
    case 8: { // reductions
      std::string op = pick<std::string>({"reduce_sum", "reduce_max", "reduce_sum"});
      std::string axes, r;
      if (s == "") {
        addBroadcast(p, x);
        return;
      }
      if (s == "4" || s == "2") {
        axes = "[0]";
        r = "";
      } else if (s == "4x4") {
        bool first = chance(0.5);
        axes = first ? "[0]" : "[1]";
        r = "4";
      } else {
        axes = "[0]";
        r = "4x4";
      }
      push(p, {x}, {r}, [op, axes, t, r](auto &in, auto &out) {
        return out[0] + " = jx." + op + " " + in[0] + ", axes = " + axes + " : " + t + " -> " + ty(r);
      });
      return;
    }
    case 9: { // checkpoint_name
      std::string name = pick<std::string>({"a", "b", "c"});
      push(p, {x}, {s}, [name, t](auto &in, auto &out) {
        return out[0] + " = jx.checkpoint_name " + in[0] + ", \"" + name + "\" : " + t;
      });
      return;
    }
    case 10: { // select_n on a comparison
      int y = valueOf(p, s, x);
      std::string b = tensorType(s, "i1");
      push(p, {x, y}, {s}, [t, b](auto &in, auto &out) {
        return out[0] + "_p = jx.gt " + in[0] + ", " + in[1] + " : " + t + "\n" + out[0] +
               " = jx.select_n " + out[0] + "_p, " + in[0] + ", " + in[1] + " : " + b + ", " + t +
               ", " + t;
      });
      return;
    }
    case 11: { // shape ops on 4x4 / 4
      if (s == "4x4") {
        push(p, {x}, {"4x4"}, [](auto &in, auto &out) {
          return out[0] + " = jx.transpose " + in[0] +
                 ", perm = [1, 0] : tensor<4x4xf64> -> tensor<4x4xf64>";
        });
      } else if (s == "4") {
        bool reverse = chance(0.5);
        push(p, {x}, {"4"}, [reverse](auto &in, auto &out) {
          return out[0] + " = jx.cumsum " + in[0] + ", axis = 0" + (reverse ? " reverse" : "") +
                 " : tensor<4xf64>";
        });
      } else {
        addBroadcast(p, x);
      }
      return;
    }
    case 12: { // slices into halves, concatenated back swapped
      if (s != "4") {
        addBroadcast(p, x);
        return;
      }
      int y = valueOf(p, "4");
      push(p, {x, y}, {"4"}, [](auto &in, auto &out) {
        return out[0] + "_l = jx.slice " + in[0] +
               ", start = [0], limit = [2], strides = [1] : tensor<4xf64> -> tensor<2xf64>\n" +
               out[0] + "_i = jx.constant dense<1> : tensor<i32>\n" + out[0] +
               "_h = jx.dynamic_slice " + in[1] + "[" + out[0] +
               "_i], sizes = [2] : tensor<4xf64>, tensor<i32> -> tensor<2xf64>\n" + out[0] +
               " = jx.concatenate(" + out[0] + "_h, " + out[0] + "_l) dim = 0 : tensor<2xf64>, "
               "tensor<2xf64> -> tensor<4xf64>";
      });
      return;
    }
    case 13: { // relu with a constant
      push(p, {x}, {s}, [t](auto &in, auto &out) {
        return out[0] + "_z = jx.constant dense<0.0> : " + t + "\n" + out[0] + " = jx.max " +
               in[0] + ", " + out[0] + "_z : " + t;
      });
      return;
    }
    case 14: { // optimization_barrier with two results
      int y = valueOf(p, "4");
      if (y < 0)
        y = x;
      std::string u = ty(p.shapes[y]);
      push(p, {x, y}, {s, p.shapes[y]}, [t, u](auto &in, auto &out) {
        return out[0] + ", " + out[1] + " = jx.optimization_barrier " + in[0] + ", " + in[1] +
               " : " + t + ", " + u;
      });
      return;
    }
    default: { // f64 -> f32 -> sin -> f64
      std::string f = tensorType(s, "f32");
      push(p, {x}, {s}, [t, f](auto &in, auto &out) {
        return out[0] + "_f = jx.convert_element_type " + in[0] + " : " + t + " -> " + f + "\n" +
               out[0] + "_s = jx.sin " + out[0] + "_f : " + f + "\n" + out[0] +
               " = jx.convert_element_type " + out[0] + "_s : " + f + " -> " + t;
      });
      return;
    }
    }
  }

  /// A carry of x's shape through 1-3 steps of sin(h * c) (or the reverse
  /// order), c a const operand of the same shape.
  void addScan(Program &p) {
    int x = static_cast<int>(p.shapes.size()) - 1;
    std::string s = p.shapes[x], t = ty(s);
    int c = valueOf(p, s, x);
    std::string length = std::to_string(uniform(1, 3));
    bool reverse = chance(0.3);
    push(p, {c, x}, {s}, [t, length, reverse](auto &in, auto &out) {
      std::string o = out[0];
      return o + " = jx.scan (" + in[0] + ", " + in[1] + ") length = " + length +
             ", consts = 1, carry = 1" + (reverse ? " reverse" : "") + " : (" + t + ", " + t +
             ") -> " + t + " {\n^bb0(" + o + "_c: " + t + ", " + o + "_h: " + t + "):\n" + o +
             "_m = jx.mul " + o + "_h, " + o + "_c : " + t + "\n" + o + "_s = jx.sin " + o +
             "_m : " + t + "\njx.yield " + o + "_s : " + t + "\n}";
    });
  }

  /// x * y if the sum of x is positive, else sin(x); or, half the time, a
  /// three-way switch on sign(sum x) + 1 (lax.switch with an index computed
  /// from the data): sin(x), x * y or tanh(y).
  void addCond(Program &p) {
    int x = static_cast<int>(p.shapes.size()) - 1;
    std::string s = p.shapes[x], t = ty(s);
    int y = valueOf(p, s, x);
    std::string axes = s == "" ? "" : s == "4" ? "[0]" : s == "4x4" ? "[0, 1]" : "[0, 1, 2]";
    if (chance(0.5))
      return push(p, {x, y}, {s}, [t, axes](auto &in, auto &out) {
        std::string o = out[0], sum = axes.empty() ? in[0] : o + "_sum";
        std::string text;
        if (!axes.empty())
          text += sum + " = jx.reduce_sum " + in[0] + ", axes = " + axes + " : " + t +
                  " -> tensor<f64>\n";
        text += o + "_g = jx.sign " + sum + " : tensor<f64>\n" + o +
                "_one = jx.constant dense<1.0> : tensor<f64>\n" + o + "_k = jx.add " + o + "_g, " +
                o + "_one : tensor<f64>\n" + o + "_i = jx.convert_element_type " + o +
                "_k : tensor<f64> -> tensor<i32>\n";
        std::string block = "(" + o + "_a: " + t + ", " + o + "_b: " + t + "):\n";
        text += o + " = jx.cond " + o + "_i(" + in[0] + ", " + in[1] + ") : tensor<i32>, (" + t +
                ", " + t + ") -> " + t + " {\n^bb0" + block + o + "_0 = jx.sin " + o + "_a : " + t +
                "\njx.yield " + o + "_0 : " + t + "\n}, {\n^bb0" + block + o + "_1 = jx.mul " + o +
                "_a, " + o + "_b : " + t + "\njx.yield " + o + "_1 : " + t + "\n}, {\n^bb0" + block +
                o + "_2 = jx.tanh " + o + "_b : " + t + "\njx.yield " + o + "_2 : " + t + "\n}";
        return text;
      });
    push(p, {x, y}, {s}, [t, axes](auto &in, auto &out) {
      std::string o = out[0], sum = axes.empty() ? in[0] : o + "_sum";
      std::string text;
      if (!axes.empty())
        text += sum + " = jx.reduce_sum " + in[0] + ", axes = " + axes + " : " + t +
                " -> tensor<f64>\n";
      text += o + "_z = jx.constant dense<0.0> : tensor<f64>\n" + o + "_p = jx.gt " + sum +
              ", " + o + "_z : tensor<f64>\n";
      text += o + " = jx.cond " + o + "_p(" + in[0] + ", " + in[1] + ") : tensor<i1>, (" + t +
              ", " + t + ") -> " + t + " {\n^bb0(" + o + "_a: " + t + ", " + o + "_b: " + t +
              "):\n" + o + "_n = jx.sin " + o + "_a : " + t + "\njx.yield " + o + "_n : " + t +
              "\n}, {\n^bb0(" + o + "_x: " + t + ", " + o + "_y: " + t + "):\n" + o +
              "_r = jx.mul " + o + "_x, " + o + "_y : " + t + "\njx.yield " + o + "_r : " + t +
              "\n}";
      return text;
    });
  }

  void addBroadcast(Program &p, int x) {
    std::string s = p.shapes[x];
    std::string r, dims;
    if (s == "") {
      r = "4";
      dims = "[]";
    } else if (s == "4") {
      r = "4x4";
      dims = chance(0.5) ? "[0]" : "[1]";
    } else if (s == "4x4") {
      r = "2x4x4";
      dims = "[1, 2]";
    } else { // 2x4x4: sum back down
      push(p, {x}, {"4x4"}, [](auto &in, auto &out) {
        return out[0] + " = jx.reduce_sum " + in[0] +
               ", axes = [0] : tensor<2x4x4xf64> -> tensor<4x4xf64>";
      });
      return;
    }
    push(p, {x}, {r}, [s, r, dims](auto &in, auto &out) {
      return out[0] + " = jx.broadcast_in_dim " + in[0] + ", dims = " + dims + " : " + ty(s) +
             " -> " + ty(r);
    });
  }

  /// Random laminar intervals (nested or disjoint), each with an output.
  void placeRegions(Program &p) {
    int n = static_cast<int>(p.ops.size());
    int attempts = uniform(0, 6);
    for (int k = 0; k < attempts; ++k) {
      int a = uniform(0, n - 1), b = uniform(a + 1, n);
      bool ok = true;
      for (const Interval &r : p.regions) {
        bool disjoint = b <= r.start || r.end <= a;
        bool inside = r.start <= a && b <= r.end && (r.start != a || r.end != b);
        bool around = a <= r.start && r.end <= b && (r.start != a || r.end != b);
        ok &= disjoint || inside || around;
      }
      if (!ok || regionOutputs(p, {a, b, 0, true}).empty())
        continue;
      p.regions.push_back({a, b, static_cast<int>(p.regions.size()), !chance(0.25)});
    }
  }
};

using Generator = BasicGenerator<std::mt19937_64>;

inline std::vector<int> regionOutputs(const Program &p, const Interval &r) {
  std::set<int> out;
  for (int i = r.end; i < static_cast<int>(p.ops.size()); ++i)
    for (int v : p.ops[i].operands)
      if (p.definer[v] >= r.start && p.definer[v] < r.end)
        out.insert(v);
  for (int v : p.returned)
    if (p.definer[v] >= r.start && p.definer[v] < r.end)
      out.insert(v);
  return {out.begin(), out.end()};
}

inline std::vector<int> regionInputs(const Program &p, const Interval &r) {
  std::set<int> in;
  for (int i = r.start; i < r.end; ++i)
    for (int v : p.ops[i].operands)
      if (p.definer[v] < r.start)
        in.insert(v);
  return {in.begin(), in.end()};
}

/// Prints `p` as MLIR; region k's policy is the placeholder $P<k>.
class Printer {
public:
  explicit Printer(const Program &p) : p(p) {}

  std::string print() {
    std::ostringstream os;
    os << "func.func @f(";
    for (int i = 0; i < p.numArgs; ++i) {
      os << (i ? ", " : "") << "%v" << i << ": " << ty(p.shapes[i]);
      names[i] = "%v" + std::to_string(i);
    }
    os << ") -> (";
    for (size_t i = 0; i < p.returned.size(); ++i)
      os << (i ? ", " : "") << ty(p.shapes[p.returned[i]]);
    os << ") {\n";
    std::vector<const Interval *> top = children(0, static_cast<int>(p.ops.size()), nullptr);
    emitRange(os, 0, static_cast<int>(p.ops.size()), top);
    os << "  return ";
    for (size_t i = 0; i < p.returned.size(); ++i)
      os << (i ? ", " : "") << names.at(p.returned[i]);
    os << " : ";
    for (size_t i = 0; i < p.returned.size(); ++i)
      os << (i ? ", " : "") << ty(p.shapes[p.returned[i]]);
    os << "\n}\n";
    return os.str();
  }

private:
  const Program &p;
  std::map<int, std::string> names;
  int nextRegion = 0;

  /// The maximal intervals strictly inside [lo, hi) other than `self`, in order.
  std::vector<const Interval *> children(int lo, int hi, const Interval *self) {
    std::vector<const Interval *> out;
    for (const Interval &r : p.regions) {
      if (&r == self || r.start < lo || r.end > hi)
        continue;
      bool maximal = true;
      for (const Interval &o : p.regions)
        if (&o != self && &o != &r && o.start >= lo && o.end <= hi && o.start <= r.start &&
            r.end <= o.end)
          maximal = false;
      if (maximal)
        out.push_back(&r);
    }
    std::sort(out.begin(), out.end(), [](auto *a, auto *b) { return a->start < b->start; });
    return out;
  }

  void emitOp(std::ostringstream &os, int i) {
    const Op &op = p.ops[i];
    std::vector<std::string> in, out;
    for (int v : op.operands)
      in.push_back(names.at(v));
    for (size_t k = 0; k < op.shapes.size(); ++k) {
      int v = p.opFirstValue[i] + static_cast<int>(k);
      names[v] = "%v" + std::to_string(v);
      out.push_back(names[v]);
    }
    os << op.emit(in, out) << "\n";
  }

  void emitRange(std::ostringstream &os, int lo, int hi, const std::vector<const Interval *> &kids) {
    int at = lo;
    for (const Interval *r : kids) {
      for (; at < r->start; ++at)
        emitOp(os, at);
      emitRegion(os, *r);
      at = r->end;
    }
    for (; at < hi; ++at)
      emitOp(os, at);
  }

  void emitRegion(std::ostringstream &os, const Interval &r) {
    std::vector<int> ins = regionInputs(p, r), outs = regionOutputs(p, r);
    std::string id = "%r" + std::to_string(nextRegion++);
    auto types = [&](const std::vector<int> &vs) {
      std::string s;
      for (size_t i = 0; i < vs.size(); ++i)
        s += (i ? ", " : "") + ty(p.shapes[vs[i]]);
      return s;
    };
    os << id << (outs.size() > 1 ? ":" + std::to_string(outs.size()) : "") << " = jx.remat(";
    for (size_t i = 0; i < ins.size(); ++i)
      os << (i ? ", " : "") << names.at(ins[i]);
    os << ") : (" << types(ins) << ") -> (" << types(outs) << ") policy = #jx.policy<$P"
       << r.policySlot << "> {\n^bb0(";
    std::map<int, std::string> saved = names;
    for (size_t i = 0; i < ins.size(); ++i) {
      std::string arg = id + "_a" + std::to_string(i);
      os << (i ? ", " : "") << arg << ": " << ty(p.shapes[ins[i]]);
      names[ins[i]] = arg;
    }
    os << "):\n";
    emitRange(os, r.start, r.end, children(r.start, r.end, &r));
    os << "jx.yield ";
    for (size_t i = 0; i < outs.size(); ++i)
      os << (i ? ", " : "") << names.at(outs[i]);
    os << " : " << types(outs) << "\n}";
    if (!r.preventCse)
      os << " attributes {prevent_cse = false}";
    os << "\n";
    names = saved;
    for (size_t i = 0; i < outs.size(); ++i)
      names[outs[i]] = outs.size() > 1 ? id + "#" + std::to_string(i) : id;
  }
};

inline std::string withPolicies(const std::string &text, const Program &p,
                         const std::function<std::string(int)> &policyOf) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const Interval &r : p.regions)
    values.push_back({"P" + std::to_string(r.policySlot), policyOf(r.policySlot)});
  return subst(text, values);
}

} // namespace randomprograms

#endif // COTANGENT_TEST_SUPPORT_RANDOMPROGRAMS_H
