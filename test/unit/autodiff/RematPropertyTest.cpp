// Property test of --jx-remat over random programs: random differentiable ops
// on random shapes, random (nested) remat placements, random checkpoint
// names, every policy. Properties that hold by the remat semantics:
//  - @f_vjp's primal outputs and gradients are bit-identical to those of the
//    VJP without remat, whatever the policy (recomputation repeats the same
//    ops on the same values);
//  - everything_saveable saves exactly the residuals of no remat;
//  - under nothing_saveable everywhere, a residual computed inside regions
//    is used by some op that lies in none of those regions (it is an output
//    of its regions, or an input of a region outside them): nothing that
//    only the regions' own ops use is kept; other residuals are arguments or
//    values computed outside any region;
//  - only offloading policies tag residuals with a memory kind, and only on
//    the values they offload.
// The residual COUNT under nothing_saveable may exceed the count without
// remat (a region recomputing from many inputs); a fixed test shows it.
#include "AutodiffUtil.h"

#include "passes/Passes.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <sstream>

using namespace autodiff;
using mlir::cotangent::Residual;

namespace {

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

std::string ty(const std::string &shape) { return tensorType(shape); }

class Generator {
public:
  explicit Generator(uint64_t seed) : rng(seed) {}

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
  std::mt19937_64 rng;

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, std::max(lo, hi))(rng); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
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
    int kind = uniform(0, 15);
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
      if (!ok || outputs(p, {a, b, 0, true}).empty())
        continue;
      p.regions.push_back({a, b, static_cast<int>(p.regions.size()), !chance(0.25)});
    }
  }

public:
  /// Values defined in the interval and used after it or returned.
  static std::vector<int> outputs(const Program &p, const Interval &r) {
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
  /// Values used in the interval and defined before it.
  static std::vector<int> inputs(const Program &p, const Interval &r) {
    std::set<int> in;
    for (int i = r.start; i < r.end; ++i)
      for (int v : p.ops[i].operands)
        if (p.definer[v] < r.start)
          in.insert(v);
    return {in.begin(), in.end()};
  }
};

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
    std::vector<int> ins = Generator::inputs(p, r), outs = Generator::outputs(p, r);
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

std::string withPolicies(const std::string &text, const Program &p,
                         const std::function<std::string(int)> &policyOf) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const Interval &r : p.regions)
    values.push_back({"P" + std::to_string(r.policySlot), policyOf(r.policySlot)});
  return subst(text, values);
}

/// Marks each op of @f_fwd (after --jx-vjp) with whether each result is used
/// by an op outside all the remat regions the result is computed in.
void markEscapes(mlir::ModuleOp module) {
  auto pair = mlir::jx::lookupSplitPair(module, "f");
  REQUIRE(pair);
  mlir::func::FuncOp fwd = pair->fwd;
  auto stackOf = [](mlir::Operation *op) -> std::vector<int64_t> {
    llvm::ArrayRef<int64_t> ids = mlir::jx::getRematRegions(op);
    return {ids.begin(), ids.end()};
  };
  mlir::Builder b(module.getContext());
  fwd.walk([&](mlir::Operation *op) {
    if (op == fwd.getOperation())
      return;
    std::vector<int64_t> mine = stackOf(op);
    std::vector<bool> escapes;
    for (mlir::Value r : op->getResults()) {
      bool e = mine.empty();
      for (mlir::Operation *user : r.getUsers()) {
        std::vector<int64_t> theirs = stackOf(user);
        bool disjoint = true;
        for (int64_t id : mine)
          disjoint &= std::find(theirs.begin(), theirs.end(), id) == theirs.end();
        // The return of @f_fwd uses primal results and residuals alike: only
        // the primal results count as uses outside the regions.
        if (mlir::isa<mlir::func::ReturnOp>(user))
          continue;
        e |= disjoint;
      }
      escapes.push_back(e);
    }
    llvm::SmallVector<bool> flags(escapes.begin(), escapes.end());
    op->setAttr("test.escapes", b.getDenseBoolArrayAttr(flags));
  });
}

void checkNothingSaveableResiduals(mlir::ModuleOp module) {
  auto pair = mlir::jx::lookupSplitPair(module, "f");
  REQUIRE(pair);
  auto ret = mlir::cast<mlir::func::ReturnOp>(pair->fwd.getBody().front().getTerminator());
  int64_t numPrimal = mlir::jx::numPrimalResults(pair->fwd);
  for (unsigned i = numPrimal; i < ret.getNumOperands(); ++i) {
    mlir::Value v = ret.getOperand(i);
    auto result = mlir::dyn_cast<mlir::OpResult>(v);
    if (!result)
      continue; // an argument
    auto flags = result.getOwner()->getAttrOfType<mlir::DenseBoolArrayAttr>("test.escapes");
    REQUIRE(flags);
    std::string printed;
    llvm::raw_string_ostream os(printed);
    result.getOwner()->print(os);
    INFO("residual " << i - numPrimal << " from " << printed);
    CHECK(flags.asArrayRef()[result.getResultNumber()]);
  }
}

} // namespace

TEST_CASE("remat property: random programs, every policy, bit-identical gradients",
          "[autodiff][remat][property]") {
  constexpr int kPrograms = 240;
  int withRegions = 0, nested = 0;
  std::map<std::string, int> totalResiduals;
  for (int n = 0; n < kPrograms; ++n) {
    Generator gen(1000 + n);
    Program program = gen.generate();
    std::string text = Printer(program).print();
    INFO("program " << n << ":\n" << text);
    withRegions += !program.regions.empty();
    for (const Interval &a : program.regions)
      for (const Interval &b : program.regions)
        nested += &a != &b && a.start <= b.start && b.end <= a.end;

    // Baseline: the VJP without --jx-remat; its outputs are @f's, regions and all.
    std::string plain = withPolicies(text, program, [](int) { return "nothing_saveable"; });
    auto base = parse(plain);
    std::mt19937_64 rng(n);
    std::vector<Tensor> inputs, cts;
    for (auto type : argumentTypes(*base, "f"))
      inputs.push_back(random(type, rng));
    for (auto type : resultTypes(*base, "f"))
      cts.push_back(random(type, rng, -1, 1));
    std::vector<Tensor> primal = call(*base, "f", inputs);
    differentiate(*base, false);
    VjpResult ref = runVjp(*base, inputs, cts);
    for (size_t i = 0; i < primal.size(); ++i)
      REQUIRE(bitIdentical(primal[i], ref.outputs[i]));
    std::vector<Residual> refResiduals = residualsOf(*base);

    std::vector<std::string> variants = allPolicies();
    variants.push_back("random");
    for (const std::string &policy : variants) {
      INFO("policy " << policy);
      std::mt19937_64 pick(n * 31 + 7);
      std::string source = withPolicies(text, program, [&](int) {
        if (policy != "random")
          return policy;
        return allPolicies()[std::uniform_int_distribution<size_t>(0, allPolicies().size() - 1)(pick)];
      });
      auto module = parse(source);
      differentiate(*module, false);
      bool nothing = policy == "nothing_saveable";
      if (nothing)
        markEscapes(*module);
      {
        mlir::PassManager pm(&context());
        pm.addPass(mlir::cotangent::createJxRematPass());
        REQUIRE(mlir::succeeded(pm.run(*module)));
      }
      VjpResult r = runVjp(*module, inputs, cts);
      for (size_t i = 0; i < r.outputs.size(); ++i)
        CHECK(bitIdentical(r.outputs[i], ref.outputs[i]));
      for (size_t i = 0; i < r.gradients.size(); ++i) {
        INFO("gradient " << i << ": " << show(r.gradients[i]) << " vs " << show(ref.gradients[i]));
        CHECK(bitIdentical(r.gradients[i], ref.gradients[i]));
      }
      std::vector<Residual> saved = residualsOf(*module);
      totalResiduals[policy] += static_cast<int>(saved.size());
      if (policy == "everything_saveable") {
        REQUIRE(saved.size() == refResiduals.size());
        for (size_t i = 0; i < saved.size(); ++i) {
          CHECK(saved[i].what == refResiduals[i].what);
          CHECK(saved[i].type == refResiduals[i].type);
          CHECK(saved[i].memoryKind.empty());
        }
      }
      if (nothing)
        checkNothingSaveableResiduals(*module);
      for (const Residual &res : saved) {
        if (res.memoryKind.empty())
          continue;
        CHECK(res.memoryKind == "pinned_host");
        if (policy == "random")
          continue;
        CHECK(policy.find("offload") != std::string::npos);
        if (policy.rfind("offload_dot", 0) == 0)
          CHECK(res.what == "dot_general");
        if (policy.rfind("save_and_offload", 0) == 0)
          CHECK((res.kind == Residual::Kind::Named && res.what == "b"));
      }
    }
  }
  // The generator does exercise regions and nesting.
  CHECK(withRegions > kPrograms / 2);
  CHECK(nested > 20);
  // Without regions saving nothing, nothing_saveable saves less overall than everything_saveable.
  CHECK(totalResiduals["nothing_saveable"] < totalResiduals["everything_saveable"]);
}

TEST_CASE("remat can save more residuals than no remat", "[autodiff][remat]") {
  // sin(x1 + ... + x5) saves cos(sum) without remat; checkpointed, the five
  // region inputs are saved to recompute it. Gradients are the same.
  const std::string src = R"(func.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>, %c: tensor<3xf64>, %d: tensor<3xf64>, %e: tensor<3xf64>) -> tensor<3xf64> {
  %r = jx.remat(%a, %b, %c, %d, %e) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64> policy = #jx.policy<nothing_saveable> {
  ^bb0(%x1: tensor<3xf64>, %x2: tensor<3xf64>, %x3: tensor<3xf64>, %x4: tensor<3xf64>, %x5: tensor<3xf64>):
    %0 = jx.add %x1, %x2 : tensor<3xf64>
    %1 = jx.add %0, %x3 : tensor<3xf64>
    %2 = jx.add %1, %x4 : tensor<3xf64>
    %3 = jx.add %2, %x5 : tensor<3xf64>
    %4 = jx.sin %3 : tensor<3xf64>
    jx.yield %4 : tensor<3xf64>
  }
  return %r : tensor<3xf64>
})";
  auto plain = parse(src);
  differentiate(*plain, false);
  auto remat = parse(src);
  differentiate(*remat, true);
  CHECK(residualsOf(*plain).size() == 1);
  std::vector<Residual> saved = residualsOf(*remat);
  CHECK(saved.size() == 5);
  for (const Residual &r : saved)
    CHECK(r.kind == Residual::Kind::Argument);
  std::mt19937_64 rng(3);
  std::vector<Tensor> inputs;
  for (int i = 0; i < 5; ++i)
    inputs.push_back(random("tensor<3xf64>", rng));
  Tensor ct = random("tensor<3xf64>", rng);
  VjpResult a = runVjp(*plain, inputs, {ct}), b = runVjp(*remat, inputs, {ct});
  for (int i = 0; i < 5; ++i)
    CHECK(bitIdentical(a.gradients[i], b.gradients[i]));
}
