// Pareto elimination (the memory_budget solver's exact frontier) against
// brute force: on 500 random cost models over up to 14 binary variables
// (unary costs, forbidden assignments of two or three variables, a byte
// capacity), the frontier is exactly the Pareto-optimal (bytes, FLOPs) pairs
// of all allowed assignments, and every point's assignment is allowed and
// costs what the point says. Too wide a model, and a model nothing satisfies,
// are answered as such.
#include "passes/remat/ParetoElimination.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

using namespace mlir::cotangent;

namespace {

/// A model kept in a form brute force can evaluate.
struct Model {
  int numVariables = 0;
  struct Term {
    std::vector<int> scope;
    std::vector<std::optional<BiCost>> costs;
  };
  std::vector<Term> terms;

  /// The cost of `assignment` (bit v is variable v), or none if forbidden.
  std::optional<BiCost> cost(unsigned assignment) const {
    BiCost total;
    for (const Term &term : terms) {
      unsigned index = 0;
      for (size_t i = 0; i < term.scope.size(); ++i)
        index |= ((assignment >> term.scope[i]) & 1u) << i;
      if (!term.costs[index])
        return std::nullopt;
      total.bytes += term.costs[index]->bytes;
      total.flops += term.costs[index]->flops;
    }
    return total;
  }

  ParetoElimination build() const {
    ParetoElimination solver(numVariables);
    for (const Term &term : terms)
      solver.addTerm(term.scope, term.costs);
    return solver;
  }
};

Model randomModel(std::mt19937 &rng) {
  Model model;
  model.numVariables = std::uniform_int_distribution<int>(1, 14)(rng);
  std::uniform_int_distribution<int> var(0, model.numVariables - 1), cost(0, 24);
  // Costs in multiples of 8 bytes, as tensors come.
  for (int v = 0; v < model.numVariables; ++v) {
    if (rng() % 2)
      model.terms.push_back({{v}, {BiCost{}, BiCost{8 * cost(rng), 0}}});
    if (rng() % 2)
      model.terms.push_back({{v}, {BiCost{}, BiCost{0, cost(rng)}}});
  }
  // Trade-offs, as in the budget model: one of a saving (bytes) and a
  // rebuild (FLOPs) is needed.
  for (int v = 0; v + 1 < model.numVariables; v += 2)
    if (rng() % 2)
      model.terms.push_back({{v, v + 1}, {std::nullopt, BiCost{8 * cost(rng), 0},
                                          BiCost{0, cost(rng)}, BiCost{}}});
  int constraints = std::uniform_int_distribution<int>(0, 2 * model.numVariables)(rng);
  for (int c = 0; c < constraints; ++c) {
    std::vector<int> scope{var(rng), var(rng), var(rng)};
    std::sort(scope.begin(), scope.end());
    scope.erase(std::unique(scope.begin(), scope.end()), scope.end());
    std::shuffle(scope.begin(), scope.end(), rng);
    std::vector<std::optional<BiCost>> costs(1u << scope.size(), BiCost{});
    costs[rng() % costs.size()] = std::nullopt;
    // Now and then a term with costs on several assignments.
    if (rng() % 4 == 0)
      for (auto &c : costs)
        if (c)
          c = BiCost{8 * cost(rng), cost(rng)};
    model.terms.push_back({scope, costs});
  }
  return model;
}

/// The Pareto-optimal (bytes, FLOPs) of all allowed assignments within
/// `capacity`, bytes rising.
std::vector<std::pair<int64_t, int64_t>> bruteForce(const Model &model, int64_t capacity) {
  std::vector<std::pair<int64_t, int64_t>> all;
  for (unsigned a = 0; a < (1u << model.numVariables); ++a)
    if (std::optional<BiCost> c = model.cost(a); c && c->bytes <= capacity)
      all.push_back({c->bytes, c->flops});
  std::sort(all.begin(), all.end());
  std::vector<std::pair<int64_t, int64_t>> frontier;
  for (auto point : all)
    if (frontier.empty() || point.second < frontier.back().second)
      frontier.push_back(point);
  return frontier;
}

} // namespace

TEST_CASE("Pareto elimination equals brute force on random models", "[pareto]") {
  std::mt19937 rng(20261123);
  int nonTrivial = 0, empty = 0;
  for (int trial = 0; trial < 500; ++trial) {
    Model model = randomModel(rng);
    int64_t capacity = rng() % 3 == 0 ? std::numeric_limits<int64_t>::max()
                                      : std::uniform_int_distribution<int64_t>(0, 400)(rng);
    INFO("trial " << trial << ", " << model.numVariables << " variables, capacity " << capacity);
    std::vector<std::pair<int64_t, int64_t>> expected = bruteForce(model, capacity);
    ParetoElimination::Limits limits;
    limits.byteCapacity = capacity;
    std::optional<std::vector<ParetoElimination::Point>> got = model.build().solve(limits);
    REQUIRE(got.has_value());
    REQUIRE(got->size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const ParetoElimination::Point &point = (*got)[i];
      CHECK(point.bytes == expected[i].first);
      CHECK(point.flops == expected[i].second);
      unsigned assignment = 0;
      for (int v : point.assignment.set_bits())
        assignment |= 1u << v;
      std::optional<BiCost> cost = model.cost(assignment);
      REQUIRE(cost.has_value());
      CHECK(cost->bytes == point.bytes);
      CHECK(cost->flops == point.flops);
    }
    nonTrivial += expected.size() >= 3;
    empty += expected.empty();
  }
  // The models exercise long frontiers and infeasible ones.
  CHECK(nonTrivial > 60);
  CHECK(empty > 10);
}

TEST_CASE("Pareto elimination gives up past its width", "[pareto]") {
  // Every pair of 6 variables linked: eliminating any joins the other 5.
  ParetoElimination dense(6);
  for (int a = 0; a < 6; ++a) {
    dense.addTerm({a}, {BiCost{}, BiCost{8, 1}});
    for (int b = a + 1; b < 6; ++b)
      dense.forbid({a, b}, 0b11);
  }
  ParetoElimination::Limits narrow;
  narrow.maxWidth = 4;
  CHECK_FALSE(dense.solve(narrow).has_value());
  std::optional<std::vector<ParetoElimination::Point>> wide = dense.solve({});
  REQUIRE(wide.has_value());
  // At most one variable set, each costing (8, 1): nothing set dominates.
  REQUIRE(wide->size() == 1);
  CHECK(wide->front().bytes == 0);
  CHECK(wide->front().flops == 0);
}

TEST_CASE("Pareto elimination: nothing allowed, nothing within capacity", "[pareto]") {
  ParetoElimination contradiction(2);
  contradiction.forbid({0, 1}, 0b00);
  contradiction.forbid({0, 1}, 0b01);
  contradiction.forbid({0, 1}, 0b10);
  contradiction.forbid({0, 1}, 0b11);
  std::optional<std::vector<ParetoElimination::Point>> none = contradiction.solve({});
  REQUIRE(none.has_value());
  CHECK(none->empty());

  // Saving v costs 16 bytes, rebuilding it 5 FLOPs; one of the two is needed.
  ParetoElimination choice(2);
  choice.addTerm({0}, {BiCost{}, BiCost{16, 0}});
  choice.addTerm({1}, {BiCost{}, BiCost{0, 5}});
  choice.forbid({0, 1}, 0b00);
  ParetoElimination::Limits limits;
  std::optional<std::vector<ParetoElimination::Point>> both = choice.solve(limits);
  REQUIRE(both.has_value());
  REQUIRE(both->size() == 2);
  CHECK(both->at(0).bytes == 0);
  CHECK(both->at(0).flops == 5);
  CHECK(both->at(0).assignment.test(1));
  CHECK(both->at(1).bytes == 16);
  CHECK(both->at(1).flops == 0);
  CHECK(both->at(1).assignment.test(0));
  limits.byteCapacity = 15;
  REQUIRE(choice.solve(limits)->size() == 1);
}
