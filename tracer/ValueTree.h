//===- ValueTree.h - trees of concrete tensors ------------------*- C++ -*-===//
//
// The arguments and results of grad, value_and_grad and jit are trees of
// interp::Tensors (host arrays), structured as the traced function's are:
// `grad(loss, argnums<0>)(params, x)` returns the gradient as a tree shaped
// like `params`. A value tree also stands for its own shapes and dtypes, so
// it can be traced on directly. Leaves are named by their JAX keystr paths,
// which is how a mismatched tree is reported:
//
//   params['Dense_0']['kernel']: expected f32[512,2048], got f32[512,1024]
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_VALUETREE_H
#define COTANGENT_TRACER_VALUETREE_H

#include "tracer/Pytree.h"
#include "runtime/interpreter/Tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace cotangent {

/// The Spec of a concrete tensor (for tracing on its shape and dtype).
Spec specOf(const interp::Tensor &t);

template <>
struct Tree<interp::Tensor> {
  static constexpr bool isTensorTree = false;
  static constexpr bool isSpecTree = true; // traced as its Spec
  static constexpr bool isValueTree = true;
  using Traced = Tensor;
  template <class Fn>
  static void forEach(const interp::Tensor &t, const std::string &path, Fn &&fn) {
    fn(path, t);
  }
  template <class V>
  static void walk(const interp::Tensor &t, V &visitor) {
    visitor.leaf(t);
  }
  template <class C>
  static auto rebuild(const interp::Tensor &, C &c) {
    return std::remove_cvref_t<decltype(c.take())>(c.take());
  }
  template <class Fn>
  static Tensor materialize(const interp::Tensor &t, const std::string &path, Fn &&leaf) {
    return leaf(path, specOf(t));
  }
};

/// A leaf's path and its type as JAX prints it ("f32[512,1024]").
struct LeafSignature {
  std::string path;
  std::string type;
  bool operator==(const LeafSignature &) const = default;
};

/// The leaves of a value tree with their paths (prefixed by `root`).
template <ValueTree T>
std::vector<std::pair<std::string, interp::Tensor>> flattenValues(const T &tree,
                                                                  const std::string &root) {
  std::vector<std::pair<std::string, interp::Tensor>> out;
  Tree<T>::forEach(tree, root,
                   [&](const std::string &p, const interp::Tensor &t) { out.emplace_back(p, t); });
  return out;
}

/// What a tree's structure, shapes and dtypes come to: one entry per leaf.
std::vector<LeafSignature>
signatureOf(const std::vector<std::pair<std::string, interp::Tensor>> &leaves);

/// "" when `got` matches `expected`; otherwise one line per difference,
/// each naming the leaf's path: a different shape or dtype, a leaf missing,
/// a leaf not expected.
std::string describeMismatch(const std::vector<LeafSignature> &expected,
                             const std::vector<LeafSignature> &got);
/// Throws TraceError "`what`: the trees differ:\n`diff`".
[[noreturn]] void throwTreeMismatch(const std::string &what, const std::string &diff);

/// jax.tree.map over value trees of one structure: a tree shaped like `a`
/// whose leaves are fn(leaf of a, leaf of each of `rest`). Throws naming
/// the leaves where a tree's structure, shapes or dtypes differ from a's.
template <ValueTree T, class Fn, ValueTree... Rest>
T tree_map(Fn &&fn, const T &a, const Rest &...rest) {
  auto leaves = flattenValues(a, "");
  std::vector<std::vector<std::pair<std::string, interp::Tensor>>> others{
      flattenValues(rest, "")...};
  for (const auto &other : others)
    if (std::string diff = describeMismatch(signatureOf(leaves), signatureOf(other)); !diff.empty())
      throwTreeMismatch("tree_map", diff);
  std::vector<interp::Tensor> out;
  for (size_t i = 0; i < leaves.size(); ++i)
    out.push_back([&]<size_t... I>(std::index_sequence<I...>) {
      return fn(leaves[i].second, others[I][i].second...);
    }(std::index_sequence_for<Rest...>{}));
  LeafCursorOf<interp::Tensor> cursor{out};
  return Tree<T>::rebuild(a, cursor);
}

} // namespace cotangent

#endif // COTANGENT_TRACER_VALUETREE_H
