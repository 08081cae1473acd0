//===- BufferSimulator.cpp - abstract execution over allocations ----------===//

#include "analysis/BufferSimulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <set>

using namespace mlir;
using namespace mlir::cotangent;

namespace {

/// Bytes of one element as the LLVM lowering lays memrefs out (i1: 1, index: 8).
std::optional<int64_t> elementBytes(Type t) {
  if (t.isIndex())
    return 8;
  if (auto i = dyn_cast<IntegerType>(t))
    return (i.getWidth() + 7) / 8;
  if (auto f = dyn_cast<FloatType>(t))
    return (f.getWidth() + 7) / 8;
  if (auto c = dyn_cast<ComplexType>(t))
    if (auto e = elementBytes(c.getElementType()))
      return 2 * *e;
  return std::nullopt;
}

} // namespace

int64_t mlir::cotangent::bufferBytes(MemRefType type) {
  return type.getNumElements() * elementBytes(type.getElementType()).value_or(0);
}

namespace {

unsigned widthOf(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth();
  return 64; // index
}

/// The canonical int64 for a value of type `t`: i1 as 0/1, narrower
/// integers sign-extended.
int64_t normalize(int64_t v, Type t) {
  unsigned w = widthOf(t);
  if (w == 1)
    return v & 1;
  return w >= 64 ? v : llvm::SignExtend64(static_cast<uint64_t>(v), w);
}

uint64_t asUnsigned(int64_t v, Type t) {
  unsigned w = widthOf(t);
  return w >= 64 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(v) & llvm::maskTrailingOnes<uint64_t>(w);
}

bool compare(arith::CmpIPredicate p, int64_t a, int64_t b, Type t) {
  uint64_t ua = asUnsigned(a, t), ub = asUnsigned(b, t);
  switch (p) {
  case arith::CmpIPredicate::eq: return a == b;
  case arith::CmpIPredicate::ne: return a != b;
  case arith::CmpIPredicate::slt: return a < b;
  case arith::CmpIPredicate::sle: return a <= b;
  case arith::CmpIPredicate::sgt: return a > b;
  case arith::CmpIPredicate::sge: return a >= b;
  case arith::CmpIPredicate::ult: return ua < ub;
  case arith::CmpIPredicate::ule: return ua <= ub;
  case arith::CmpIPredicate::ugt: return ua > ub;
  case arith::CmpIPredicate::uge: return ua >= ub;
  }
  return false;
}

/// Ops whose effect on memory the simulator must see: computing through an
/// unknown op that contains one would lose allocations.
bool touchesAllocations(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<memref::AllocOp, memref::DeallocOp, gpu::AllocOp, func::CallOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Ops on a block that return a view of it.
bool isView(Operation *op) {
  return isa<memref::CastOp, memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::ReinterpretCastOp, memref::TransposeOp, memref::ViewOp,
             memref::MemorySpaceCastOp, memref::AssumeAlignmentOp>(op);
}

constexpr int kMaxDepth = 64;
/// Constant integer globals up to this many elements have tracked contents.
constexpr int64_t kMaxTrackedGlobal = int64_t{1} << 22;
constexpr int64_t kPointerStride = 4096;

} // namespace

/// Small integer blocks have their elements tracked (unknown until stored).
static void trackContents(SimulatedBlock &b, int64_t n) {
  Type e = b.type.getElementType();
  if (b.sizes.size() <= 1 && (e.isIndex() || isa<IntegerType>(e)) && n <= 4096)
    b.contents.assign(n, std::nullopt);
}

int BufferSimulator::external(MemRefType type) {
  SimulatedBlock b;
  b.type = type;
  b.sizes.assign(type.getShape().begin(), type.getShape().end());
  if (type.hasStaticShape()) {
    b.bytes = bufferBytes(type);
    // An argument's index (a lax.switch's) is decided where it is first read.
    trackContents(b, type.getNumElements());
  }
  blocks.push_back(std::move(b));
  return static_cast<int>(blocks.size()) - 1;
}

int BufferSimulator::allocate(Operation *op, MemRefType type, ArrayRef<int64_t> sizes) {
  SimulatedBlock b;
  b.type = type;
  b.sizes.assign(sizes.begin(), sizes.end());
  b.allocation = op;
  b.function = function;
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  b.bytes = n * elementBytes(type.getElementType()).value_or(0);
  trackContents(b, n);
  // Pinned host memory (gpu.alloc host_shared) is not the device's.
  auto gpuAlloc = dyn_cast<gpu::AllocOp>(op);
  bool counted = isa<memref::AllocOp>(op) || (gpuAlloc && !gpuAlloc.getHostShared());
  b.counted = counted;
  b.live = true;
  blocks.push_back(std::move(b));
  int id = static_cast<int>(blocks.size()) - 1;
  if (counted)
    record(id, blocks[id].bytes);
  return id;
}

void BufferSimulator::record(int block, int64_t delta) {
  live += delta;
  timeline.push_back({block, delta, live});
  if (delta > 0 && live > peak) {
    peak = live;
    peakEvent = static_cast<int>(timeline.size()) - 1;
    liveAtPeak.clear();
    for (auto [i, b] : llvm::enumerate(blocks))
      if (b.counted && b.live)
        liveAtPeak.push_back(static_cast<int>(i));
  }
}

void BufferSimulator::release(int block) {
  if (block < 0 || !blocks[block].counted || !blocks[block].live)
    return;
  blocks[block].live = false;
  record(block, -blocks[block].bytes);
}

int BufferSimulator::decide(int n) {
  int d = branches < decisions.size() ? std::clamp(decisions[branches], 0, n - 1) : 0;
  taken.push_back(d);
  ways.push_back(n);
  ++branches;
  return d;
}

const std::vector<int64_t> &BufferSimulator::switchCandidates(Operation *load) {
  auto [it, inserted] = candidates.try_emplace(load);
  if (!inserted)
    return it->second;
  SetVector<Operation *> slice;
  getForwardSlice(load->getResult(0), &slice);
  std::set<int64_t> values;
  for (Operation *user : slice)
    if (auto sw = dyn_cast<scf::IndexSwitchOp>(user);
        sw && slice.contains(sw.getArg().getDefiningOp()))
      for (int64_t c : sw.getCases())
        values.insert(c);
  if (values.empty())
    return it->second;
  // Each case's value, and one below and one above them all: the default
  // (or, where the index is clamped first, the outermost cases again).
  it->second.push_back(*values.begin() - 1);
  it->second.insert(it->second.end(), values.begin(), values.end());
  it->second.push_back(*values.rbegin() + 1);
  return it->second;
}

LogicalResult BufferSimulator::call(func::FuncOp fn, ArrayRef<AbstractValue> args,
                                    SmallVectorImpl<AbstractValue> &results) {
  std::string caller = function;
  function = fn.getName().str();
  Env env;
  LogicalResult ran = run(fn.getBody(), fn.getArguments(), args, env, results, 0);
  function = caller;
  return ran;
}

LogicalResult BufferSimulator::run(Region &region, ValueRange args,
                                   ArrayRef<AbstractValue> argValues, Env &env,
                                   SmallVectorImpl<AbstractValue> &yielded, int depth) {
  if (depth > kMaxDepth)
    return region.getParentOp()->emitError("memory plan: regions nested too deeply to simulate");
  if (!region.hasOneBlock())
    return region.getParentOp()->emitError(
        "memory plan: cannot simulate a region with more than one block");
  for (auto [arg, value] : llvm::zip(args, argValues))
    env[arg] = value;
  Block &block = region.front();
  for (Operation &op : block.without_terminator())
    if (failed(step(&op, env, depth)))
      return failure();
  yielded.clear();
  for (Value v : block.getTerminator()->getOperands())
    yielded.push_back(env.lookup(v));
  return success();
}

LogicalResult BufferSimulator::step(Operation *op, Env &env, int depth) {
  if (isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ExecuteRegionOp, scf::IndexSwitchOp,
          func::CallOp>(op))
    return stepControlFlow(op, env, depth);
  if (isa<memref::MemRefDialect>(op->getDialect()))
    return stepMemRef(op, env);
  if (isa<linalg::LinalgOp>(op))
    return stepLinalg(op, env);
  if (isa<arith::ArithDialect>(op->getDialect()))
    return stepArith(op, env);
  if (auto alloc = dyn_cast<gpu::AllocOp>(op))
    return stepGpuAlloc(alloc, env);
  // Everything else computes on tensor data: its results are unknown.
  if (touchesAllocations(op))
    return op->emitError("memory plan: cannot simulate the allocations inside '")
           << op->getName() << "'";
  for (Value r : op->getResults())
    if (isa<MemRefType, UnrankedMemRefType>(r.getType()))
      return op->emitError("memory plan: cannot tell which block '")
             << op->getName() << "' returns";
  return success();
}

LogicalResult BufferSimulator::stepControlFlow(Operation *op, Env &env, int depth) {
  auto scalar = [&](Value v) { return env.lookup(v).scalar; };
  auto bindResults = [&](ValueRange results, ArrayRef<AbstractValue> values) {
    for (auto [r, v] : llvm::zip(results, values))
      env[r] = v;
  };
  SmallVector<AbstractValue> yielded;

  if (auto callOp = dyn_cast<func::CallOp>(op)) {
    auto callee = module.lookupSymbol<func::FuncOp>(callOp.getCallee());
    if (callee && !callee.isExternal()) {
      SmallVector<AbstractValue> args;
      for (Value a : callOp.getOperands())
        args.push_back(env.lookup(a));
      if (failed(call(callee, args, yielded)))
        return failure();
      bindResults(callOp.getResults(), yielded);
      return success();
    }
    // External functions (BLAS, barriers) work in buffers they are given.
    for (Value r : callOp.getResults())
      if (isa<MemRefType>(r.getType()))
        return op->emitError("memory plan: cannot tell which block @")
               << callOp.getCallee() << " returns";
    return success();
  }

  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto lb = scalar(loop.getLowerBound()), ub = scalar(loop.getUpperBound()),
         stride = scalar(loop.getStep());
    if (!lb || !ub || !stride || *stride <= 0)
      return op->emitError("memory plan: the loop's bounds depend on tensor data");
    SmallVector<AbstractValue> iter;
    for (Value v : loop.getInitArgs())
      iter.push_back(env.lookup(v));
    for (int64_t i = *lb; i < *ub; i += *stride) {
      SmallVector<AbstractValue> args{AbstractValue{-1, i}};
      args.append(iter);
      if (failed(run(loop.getRegion(), loop.getRegion().getArguments(), args, env, yielded,
                     depth + 1)))
        return failure();
      iter.assign(yielded.begin(), yielded.end());
    }
    bindResults(loop.getResults(), iter);
    return success();
  }

  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    std::optional<int64_t> cond = scalar(branch.getCondition());
    bool thenWay = cond ? *cond != 0 : decide();
    Region &region = thenWay ? branch.getThenRegion() : branch.getElseRegion();
    if (region.empty())
      return success();
    if (failed(run(region, {}, {}, env, yielded, depth + 1)))
      return failure();
    bindResults(branch.getResults(), yielded);
    return success();
  }

  if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    SmallVector<AbstractValue> state;
    for (Value v : loop.getInits())
      state.push_back(env.lookup(v));
    for (int64_t trips = 0;; ++trips) {
      if (failed(run(loop.getBefore(), loop.getBefore().getArguments(), state, env, yielded,
                     depth + 1)))
        return failure();
      std::optional<int64_t> cond = yielded.front().scalar;
      if (!cond)
        return op->emitError("memory plan: the loop's trip count depends on tensor data");
      SmallVector<AbstractValue> forwarded(yielded.begin() + 1, yielded.end());
      if (!*cond) {
        bindResults(loop.getResults(), forwarded);
        return success();
      }
      if (failed(run(loop.getAfter(), loop.getAfter().getArguments(), forwarded, env, state,
                     depth + 1)))
        return failure();
    }
  }

  if (auto exec = dyn_cast<scf::ExecuteRegionOp>(op)) {
    if (failed(run(exec.getRegion(), {}, {}, env, yielded, depth + 1)))
      return failure();
    bindResults(exec.getResults(), yielded);
    return success();
  }

  auto sw = cast<scf::IndexSwitchOp>(op);
  std::optional<int64_t> arg = scalar(sw.getArg());
  Region *region = &sw.getDefaultRegion();
  if (arg) {
    for (auto [value, caseRegion] : llvm::zip(sw.getCases(), sw.getCaseRegions()))
      if (value == *arg)
        region = &caseRegion;
  } else {
    // An index not read from memory here (switchCandidates decides those
    // where they are loaded): each case, then the default.
    int way = decide(static_cast<int>(sw.getNumCases()) + 1);
    if (way < static_cast<int>(sw.getNumCases()))
      region = &sw.getCaseRegions()[way];
  }
  if (failed(run(*region, {}, {}, env, yielded, depth + 1)))
    return failure();
  bindResults(sw.getResults(), yielded);
  return success();
}

LogicalResult BufferSimulator::stepGpuAlloc(gpu::AllocOp alloc, Env &env) {
  MemRefType type = alloc.getMemref().getType();
  if (!type.hasStaticShape() || !elementBytes(type.getElementType()))
    return alloc.emitError("memory plan: cannot size the allocation ") << type;
  env[alloc.getMemref()] = {allocate(alloc, type, type.getShape()), std::nullopt};
  return success();
}

LogicalResult BufferSimulator::stepMemRef(Operation *op, Env &env) {
  auto blockOf = [&](Value v) { return env.lookup(v).block; };
  auto whole = [&](Value v) {
    // Contents are tracked through the block's own memref or casts of it.
    int b = blockOf(v);
    return b >= 0 && !blocks[b].contents.empty() && cast<MemRefType>(v.getType()).getRank() == 1 &&
           cast<MemRefType>(v.getType()).getLayout().isIdentity();
  };
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    SmallVector<int64_t> sizes;
    auto dynamic = alloc.getDynamicSizes().begin();
    for (int64_t s : alloc.getType().getShape()) {
      if (!ShapedType::isDynamic(s)) {
        sizes.push_back(s);
        continue;
      }
      std::optional<int64_t> size = env.lookup(*dynamic++).scalar;
      if (!size)
        return op->emitError("memory plan: the allocation's size depends on tensor data");
      sizes.push_back(*size);
    }
    if (!elementBytes(alloc.getType().getElementType()))
      return op->emitError("memory plan: unknown element size of ") << alloc.getType();
    env[alloc.getResult()] = {allocate(op, alloc.getType(), sizes), std::nullopt};
    return success();
  }
  if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
    if (!alloca.getType().hasStaticShape())
      return success();
    env[alloca.getResult()] = {allocate(op, alloca.getType(), alloca.getType().getShape()),
                               std::nullopt};
    return success();
  }
  if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
    int b = blockOf(dealloc.getMemref());
    if (b < 0)
      return op->emitError("memory plan: cannot tell which block is freed");
    if (blocks[b].counted && !blocks[b].live)
      return op->emitError("memory plan: a block is freed twice");
    release(b);
    return success();
  }
  if (auto sub = dyn_cast<memref::SubViewOp>(op)) {
    SmallVector<std::optional<int64_t>> offsets;
    auto dynamic = sub.getOffsets().begin();
    for (int64_t o : sub.getStaticOffsets())
      offsets.push_back(ShapedType::isDynamic(o) ? env.lookup(*dynamic++).scalar
                                                 : std::optional<int64_t>(o));
    env[sub.getResult()] = {blockOf(sub.getSource()), std::nullopt,
                            elementIndex(sub.getSource(), offsets, env)};
    return success();
  }
  if (isView(op)) {
    // Reshapes and casts keep the first element; the others forget it.
    AbstractValue source = env.lookup(op->getOperand(0));
    bool keepsStart = isa<memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
                          memref::AssumeAlignmentOp, memref::MemorySpaceCastOp>(op);
    env[op->getResult(0)] = {source.block, std::nullopt,
                             keepsStart ? source.offset : std::nullopt};
    return success();
  }
  if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
    env[meta.getBaseBuffer()] = {blockOf(meta.getSource()), std::nullopt};
    auto type = cast<MemRefType>(meta.getSource().getType());
    int64_t offset;
    SmallVector<int64_t> strides;
    if (succeeded(type.getStridesAndOffset(strides, offset))) {
      if (!ShapedType::isDynamic(offset))
        env[meta.getOffset()].scalar = offset;
      for (auto [r, s] : llvm::zip(meta.getStrides(), strides))
        if (!ShapedType::isDynamic(s))
          env[r].scalar = s;
    }
    for (auto [r, s] : llvm::zip(meta.getSizes(), type.getShape()))
      if (!ShapedType::isDynamic(s))
        env[r].scalar = s;
    return success();
  }
  if (auto ptr = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
    int b = blockOf(ptr.getSource());
    if (b >= 0)
      env[ptr.getResult()].scalar = (b + 1) * kPointerStride;
    return success();
  }
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    std::optional<int64_t> i = env.lookup(dim.getIndex()).scalar;
    auto type = cast<MemRefType>(dim.getSource().getType());
    if (!i || *i < 0 || *i >= type.getRank())
      return success();
    if (!type.isDynamicDim(*i)) {
      env[dim.getResult()].scalar = type.getDimSize(*i);
    } else if (int b = blockOf(dim.getSource());
               b >= 0 && static_cast<int64_t>(blocks[b].sizes.size()) == type.getRank()) {
      env[dim.getResult()].scalar = blocks[b].sizes[*i];
    }
    return success();
  }
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    SmallVector<std::optional<int64_t>> indices;
    for (Value i : load.getIndices())
      indices.push_back(env.lookup(i).scalar);
    std::optional<int64_t> value = readElement(load.getMemref(), indices, env);
    // A predicate computed from tensor data (a jx.cond's): decided here, where
    // it is read, and written back, so every value derived from it and every
    // later read of it (the backward's, from the residual) agree. Deciding at
    // each branch instead followed paths no run takes, and freed blocks twice.
    if (!value && load.getType().isInteger(1))
      value = decide();
    else if (!value && load.getType().isSignlessInteger())
      if (const std::vector<int64_t> &values = switchCandidates(load); !values.empty())
        value = values[decide(static_cast<int>(values.size()))];
    if (value && !readElement(load.getMemref(), indices, env)) {
      int b = blockOf(load.getMemref());
      std::optional<int64_t> at = elementIndex(load.getMemref(), indices, env);
      if (b >= 0 && at && *at >= 0 && *at < static_cast<int64_t>(blocks[b].contents.size()))
        blocks[b].contents[*at] = value;
    }
    env[load.getResult()].scalar = value;
    return success();
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    int b = blockOf(store.getMemref());
    if (b < 0 || blocks[b].contents.empty())
      return success();
    auto &contents = blocks[b].contents;
    SmallVector<std::optional<int64_t>> indices;
    for (Value i : store.getIndices())
      indices.push_back(env.lookup(i).scalar);
    std::optional<int64_t> at = elementIndex(store.getMemref(), indices, env);
    if (at && *at >= 0 && *at < (int64_t)contents.size()) {
      contents[*at] = env.lookup(store.getValue()).scalar;
      return success();
    }
    std::fill(contents.begin(), contents.end(), std::nullopt);
    return success();
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    int to = blockOf(copy.getTarget());
    if (to < 0 || blocks[to].contents.empty())
      return success();
    int from = blockOf(copy.getSource());
    auto &target = blocks[to].contents;
    std::optional<int64_t> start = env.lookup(copy.getSource()).offset;
    auto sourceType = cast<MemRefType>(copy.getSource().getType());
    if (env.lookup(copy.getTarget()).offset == 0 && from >= 0 && start &&
        !blocks[from].contents.empty() && sourceType.hasStaticShape() &&
        sourceType.getNumElements() == static_cast<int64_t>(target.size()) &&
        (sourceType.getRank() == 0 || (whole(copy.getTarget()) && whole(copy.getSource()))) &&
        *start + static_cast<int64_t>(target.size()) <=
            static_cast<int64_t>(blocks[from].contents.size()))
      std::copy_n(blocks[from].contents.begin() + *start, target.size(), target.begin());
    else
      std::fill(blocks[to].contents.begin(), blocks[to].contents.end(), std::nullopt);
    return success();
  }
  if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
    // A constant integer table (a schedule) is read like data we know; it
    // never changes, so every read of it shares one block.
    auto def = module.lookupSymbol<memref::GlobalOp>(global.getNameAttr());
    auto init = def ? dyn_cast_if_present<DenseIntElementsAttr>(def.getInitialValueAttr())
                    : DenseIntElementsAttr();
    bool table = def && def.getConstant() && init && init.getNumElements() <= kMaxTrackedGlobal;
    if (auto known = table ? constantGlobals.find(def) : constantGlobals.end();
        known != constantGlobals.end()) {
      env[global.getResult()] = {known->second, std::nullopt};
      return success();
    }
    int b = external(global.getType());
    env[global.getResult()] = {b, std::nullopt};
    if (table) {
      auto &contents = blocks[b].contents;
      contents.reserve(init.getNumElements());
      for (const APInt &v : init.getValues<APInt>())
        contents.push_back(normalize(v.getSExtValue(), init.getElementType()));
      constantGlobals[def] = b;
    }
    return success();
  }
  for (Value r : op->getResults())
    if (isa<MemRefType, UnrankedMemRefType>(r.getType()))
      return op->emitError("memory plan: cannot tell which block '")
             << op->getName() << "' returns";
  return success();
}

LogicalResult BufferSimulator::stepArith(Operation *op, Env &env) {
  if (op->getNumResults() != 1)
    return success();
  Value result = op->getResult(0);
  Type type = result.getType();
  auto known = [&](Value v) { return env.lookup(v).scalar; };
  auto set = [&](int64_t v) { env[result].scalar = normalize(v, type); };

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      set(widthOf(type) == 1 ? (int64_t)i.getValue().getZExtValue() : i.getValue().getSExtValue());
    return success();
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    std::optional<int64_t> cond = known(select.getCondition());
    if (!cond && !isa<MemRefType>(type))
      return success();
    bool first = cond ? *cond != 0 : decide();
    env[result] = env.lookup(first ? select.getTrueValue() : select.getFalseValue());
    return success();
  }
  if (isa<MemRefType>(type))
    return op->emitError("memory plan: cannot tell which block '") << op->getName() << "' returns";
  if (!type.isIntOrIndex() && !isa<arith::CmpIOp>(op))
    return success(); // floating point: data
  SmallVector<int64_t> v;
  for (Value operand : op->getOperands()) {
    std::optional<int64_t> k = known(operand);
    if (!k)
      return success();
    v.push_back(*k);
  }
  Type operandType = op->getNumOperands() ? op->getOperand(0).getType() : type;
  std::optional<int64_t> out =
      llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
          .Case([&](arith::CmpIOp cmp) -> std::optional<int64_t> {
            if (!operandType.isIntOrIndex())
              return std::nullopt;
            return compare(cmp.getPredicate(), v[0], v[1], operandType);
          })
          .Case([&](arith::AddIOp) { return v[0] + v[1]; })
          .Case([&](arith::SubIOp) { return v[0] - v[1]; })
          .Case([&](arith::MulIOp) { return v[0] * v[1]; })
          .Case([&](arith::AndIOp) { return v[0] & v[1]; })
          .Case([&](arith::OrIOp) { return v[0] | v[1]; })
          .Case([&](arith::XOrIOp) { return v[0] ^ v[1]; })
          .Case([&](arith::MaxSIOp) { return std::max(v[0], v[1]); })
          .Case([&](arith::MinSIOp) { return std::min(v[0], v[1]); })
          .Case([&](arith::DivSIOp) -> std::optional<int64_t> {
            return v[1] ? std::optional<int64_t>(v[0] / v[1]) : std::nullopt;
          })
          .Case([&](arith::RemSIOp) -> std::optional<int64_t> {
            return v[1] ? std::optional<int64_t>(v[0] % v[1]) : std::nullopt;
          })
          .Case([&](arith::DivUIOp) -> std::optional<int64_t> {
            uint64_t b = asUnsigned(v[1], operandType);
            return b ? std::optional<int64_t>(asUnsigned(v[0], operandType) / b) : std::nullopt;
          })
          .Case([&](arith::RemUIOp) -> std::optional<int64_t> {
            uint64_t b = asUnsigned(v[1], operandType);
            return b ? std::optional<int64_t>(asUnsigned(v[0], operandType) % b) : std::nullopt;
          })
          .Case([&](arith::CeilDivSIOp) -> std::optional<int64_t> {
            if (!v[1])
              return std::nullopt;
            return llvm::divideCeilSigned(v[0], v[1]);
          })
          .Case([&](arith::FloorDivSIOp) -> std::optional<int64_t> {
            if (!v[1])
              return std::nullopt;
            return llvm::divideFloorSigned(v[0], v[1]);
          })
          .Case([&](arith::ExtUIOp) { return (int64_t)asUnsigned(v[0], operandType); })
          .Case([&](arith::IndexCastUIOp) { return (int64_t)asUnsigned(v[0], operandType); })
          .Case([&](arith::ExtSIOp) { return widthOf(operandType) == 1 ? -(v[0] & 1) : v[0]; })
          .Case<arith::TruncIOp, arith::IndexCastOp>([&](Operation *) { return v[0]; })
          .Default([](Operation *) { return std::nullopt; });
  if (out)
    set(*out);
  return success();
}

std::optional<int64_t> BufferSimulator::elementIndex(Value v, ArrayRef<std::optional<int64_t>> indices,
                                                     Env &env) {
  AbstractValue view = env.lookup(v);
  if (view.block < 0 || !view.offset || blocks[view.block].contents.empty())
    return std::nullopt;
  auto type = cast<MemRefType>(v.getType());
  SmallVector<int64_t> strides;
  int64_t layoutOffset;
  if (failed(type.getStridesAndOffset(strides, layoutOffset)))
    return std::nullopt;
  int64_t at = *view.offset;
  for (auto [i, stride] : llvm::zip(indices, strides)) {
    if (!i || ShapedType::isDynamic(stride))
      return std::nullopt;
    at += *i * stride;
  }
  return at;
}

std::optional<int64_t> BufferSimulator::readElement(Value v, ArrayRef<std::optional<int64_t>> indices,
                                                    Env &env) {
  std::optional<int64_t> at = elementIndex(v, indices, env);
  int b = env.lookup(v).block;
  if (!at || *at < 0 || *at >= static_cast<int64_t>(blocks[b].contents.size()))
    return std::nullopt;
  return blocks[b].contents[*at];
}

LogicalResult BufferSimulator::stepLinalg(Operation *op, Env &env) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  auto forget = [&] {
    for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
      int b = env.lookup(init.get()).block;
      if (b >= 0)
        std::fill(blocks[b].contents.begin(), blocks[b].contents.end(), std::nullopt);
    }
    return success();
  };
  auto generic = dyn_cast<linalg::GenericOp>(op);
  auto zeroD = [](Value v) {
    auto t = dyn_cast<MemRefType>(v.getType());
    return t && t.getRank() == 0 && t.getElementType().isIntOrIndex();
  };
  if (!generic || !llvm::all_of(op->getOperands(), zeroD) ||
      !llvm::all_of(generic.getBody()->without_terminator(),
                    [](Operation &inner) { return isa<arith::ArithDialect>(inner.getDialect()); }))
    return forget();
  // One point: bind each block argument to its operand's element, run the body.
  for (auto [arg, operand] : llvm::zip(generic.getBody()->getArguments(), op->getOperands()))
    env[arg].scalar = readElement(operand, {}, env);
  for (Operation &inner : generic.getBody()->without_terminator())
    if (failed(stepArith(&inner, env)))
      return failure();
  for (auto [init, result] :
       llvm::zip(generic.getDpsInits(), generic.getBody()->getTerminator()->getOperands())) {
    std::optional<int64_t> at = elementIndex(init, {}, env);
    int b = env.lookup(init).block;
    if (!at || *at < 0 || *at >= static_cast<int64_t>(blocks[b].contents.size()))
      continue;
    blocks[b].contents[*at] = env.lookup(result).scalar;
  }
  return success();
}
