//===- CallCycles.cpp - jx programs do not call themselves ----------------===//

#include "dialects/jx/CallCycles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;

LogicalResult jx::verifyNoCallCycles(ModuleOp module) {
  enum class State { Unvisited, OnPath, Done };
  llvm::DenseMap<Operation *, State> state;
  // Depth-first over the call graph, iteratively (a long chain of calls must
  // not overflow the stack either).
  for (auto root : module.getOps<func::FuncOp>()) {
    if (state[root] != State::Unvisited)
      continue;
    SmallVector<std::pair<func::FuncOp, SmallVector<func::CallOp>>> stack;
    auto enter = [&](func::FuncOp fn) {
      state[fn] = State::OnPath;
      SmallVector<func::CallOp> calls;
      fn.walk([&](func::CallOp call) { calls.push_back(call); });
      std::reverse(calls.begin(), calls.end());
      stack.push_back({fn, std::move(calls)});
    };
    enter(root);
    while (!stack.empty()) {
      auto &[fn, calls] = stack.back();
      if (calls.empty()) {
        state[fn] = State::Done;
        stack.pop_back();
        continue;
      }
      func::CallOp call = calls.pop_back_val();
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!callee)
        continue; // the call's verifier reports an unknown callee
      if (state[callee] == State::OnPath) {
        InFlightDiagnostic diag = call.emitError()
                                  << "@" << callee.getSymName()
                                  << " calls itself: jx programs do not recurse (loop with "
                                     "jx.scan or jx.while); the cycle is ";
        bool onCycle = false;
        for (auto &[frame, unused] : stack) {
          onCycle |= frame == callee;
          if (onCycle)
            diag << "@" << frame.getSymName() << " -> ";
        }
        diag << "@" << callee.getSymName();
        return failure();
      }
      if (state[callee] == State::Unvisited)
        enter(callee);
    }
  }
  return success();
}
