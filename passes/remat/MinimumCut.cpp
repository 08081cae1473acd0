//===- MinimumCut.cpp - the least residual bytes of a remat region --------===//
//
// Builds the flow network of MinimumCut.h and cuts it with Boost.Graph's
// Boykov-Kolmogorov max flow. Every value v is split into v.in -> v.out with
// capacity bytes(v) (0 when it is saved anyway); an op the backward may
// recompute links each operand's out to each result's in with infinite
// capacity; region inputs and values the backward may not recompute are fed
// from the source; needed values drain into the sink. The saved set is the
// values whose out-node still reaches the sink in the residual graph and
// whose in-node does not: the minimum cut nearest the backward.
//
//===----------------------------------------------------------------------===//

#include "passes/remat/MinimumCut.h"

#include "dialects/jx/JxOps.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"

// GCC 12 reports false maybe-uninitialized warnings inside Boost.Graph's
// edge iterators (boost::optional members), wherever they are instantiated.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>

#include <deque>

using namespace mlir;
using namespace mlir::cotangent;

namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using Graph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<boost::vertex_index_t, long,
                    boost::property<boost::vertex_color_t, boost::default_color_type,
                                    boost::property<boost::vertex_distance_t, long,
                                                    boost::property<boost::vertex_predecessor_t,
                                                                    Traits::edge_descriptor>>>>,
    boost::property<boost::edge_capacity_t, int64_t,
                    boost::property<boost::edge_residual_capacity_t, int64_t,
                                    boost::property<boost::edge_reverse_t,
                                                    Traits::edge_descriptor>>>>;
using Vertex = Traits::vertex_descriptor;

class Network {
public:
  Network() : source(boost::add_vertex(graph)), sink(boost::add_vertex(graph)) {}

  /// The (in, out) pair of `v`, made on first use.
  std::pair<Vertex, Vertex> nodes(Value v) {
    auto [it, fresh] = index.try_emplace(v);
    if (fresh) {
      it->second = {boost::add_vertex(graph), boost::add_vertex(graph)};
      values.push_back(v);
    }
    return it->second;
  }

  void addEdge(Vertex from, Vertex to, int64_t capacity) {
    auto forward = boost::add_edge(from, to, graph).first;
    auto backward = boost::add_edge(to, from, graph).first;
    boost::put(boost::edge_capacity, graph, forward, capacity);
    boost::put(boost::edge_capacity, graph, backward, 0);
    boost::put(boost::edge_reverse, graph, forward, backward);
    boost::put(boost::edge_reverse, graph, backward, forward);
  }

  /// Cuts the network; returns the values whose split edge is cut. Of all
  /// the cuts of least bytes it takes the one nearest the sink: minimum cuts
  /// form a lattice, and the one whose sink side is smallest makes the
  /// backward recompute a subset of what any other would (saving a tanh's
  /// output rather than its input, the same bytes, recomputes nothing).
  llvm::DenseSet<Value> cut() {
    boost::boykov_kolmogorov_max_flow(graph, source, sink);
    // What reaches the sink through edges with capacity left: walk back from
    // it, over each edge's reverse, which every edge has.
    auto residual = boost::get(boost::edge_residual_capacity, graph);
    auto reverse = boost::get(boost::edge_reverse, graph);
    std::vector<bool> reaches(boost::num_vertices(graph));
    std::deque<Vertex> queue{sink};
    reaches[sink] = true;
    while (!queue.empty()) {
      Vertex w = queue.front();
      queue.pop_front();
      for (auto [e, end] = boost::out_edges(w, graph); e != end; ++e) {
        Vertex u = boost::target(*e, graph);
        if (!reaches[u] && residual[reverse[*e]] > 0) {
          reaches[u] = true;
          queue.push_back(u);
        }
      }
    }
    llvm::DenseSet<Value> saved;
    for (Value v : values) {
      auto [in, out] = index.lookup(v);
      if (!reaches[in] && reaches[out])
        saved.insert(v);
    }
    return saved;
  }

  Graph graph;
  Vertex source, sink;

private:
  llvm::DenseMap<Value, std::pair<Vertex, Vertex>> index;
  std::vector<Value> values;
};

} // namespace

bool mlir::cotangent::isCheapToRecompute(Operation *op, bool dots) {
  return jx::isCheapToRecompute(op) || (dots && isa<jx::DotGeneralOp>(op));
}

llvm::DenseSet<Value> mlir::cotangent::minimumResidualCut(const ResidualCutProblem &problem) {
  Network net;
  // Infinite: more than all the bytes together, so that no cut takes it.
  int64_t infinite = 1;
  for (Operation &op : *problem.body)
    for (Value r : op.getResults())
      infinite += jx::getTensorBytes(r.getType());
  for (BlockArgument arg : problem.body->getArguments())
    infinite += jx::getTensorBytes(arg.getType());

  // A value's nodes, made the first time it is seen: joined by its bytes,
  // and fed from the source when the backward cannot recompute it (a region
  // input, or the result of an op it may not run again).
  llvm::DenseSet<Value> seen;
  auto split = [&](Value v) {
    auto [in, out] = net.nodes(v);
    if (seen.insert(v).second) {
      net.addEdge(in, out, problem.savedAnyway(v) ? 0 : jx::getTensorBytes(v.getType()));
      Operation *def = v.getDefiningOp();
      if (!def || !problem.inRegion(def) || !problem.recomputable(def))
        net.addEdge(net.source, in, infinite);
    }
    return std::make_pair(in, out);
  };

  for (Operation &op : *problem.body) {
    if (!problem.inRegion(&op) || !problem.recomputable(&op))
      continue;
    for (Value result : op.getResults()) {
      Vertex in = split(result).first;
      for (Value operand : op.getOperands())
        net.addEdge(split(operand).second, in, infinite);
    }
  }
  for (Value v : problem.needed)
    net.addEdge(split(v).second, net.sink, infinite);
  return net.cut();
}
