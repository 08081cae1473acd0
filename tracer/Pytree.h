//===- Pytree.h - structured arguments and results ---------------*- C++ -*-===//
//
// JAX flattens pytrees of arrays into lists of leaves; so does the tracer.
// A tree is a leaf (`Tensor`, `Spec` for a function's abstract arguments,
// or a concrete `interp::Tensor`: ValueTree.h), `None`, or a std::vector,
// std::tuple, std::pair or std::map<std::string, .> of trees. Every leaf has a path printed in JAX's keystr style
// (`params['w1']`, `xs[0]`), which names function arguments and results.
//
// Besides paths, `Tree<T>::walk(tree, visitor)` visits the leaves in the
// same order without naming them, telling the visitor what T's type does
// not fix (a vector's length, a dict's keys) with `shape(n)`: what a
// compiled call needs to find its code and arguments, and nothing more.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_PYTREE_H
#define COTANGENT_TRACER_PYTREE_H

#include "tracer/Tensor.h"

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace cotangent {

/// Tree<T> describes how T is a tree; the primary template says it is not.
template <class T>
struct Tree {
  static constexpr bool isTensorTree = false;
  static constexpr bool isSpecTree = false;
  static constexpr bool isValueTree = false;
};

/// A structure of Tensors (None counts, as in JAX).
template <class T>
concept TensorTree = Tree<std::remove_cvref_t<T>>::isTensorTree;
/// A structure of Specs: the abstract arguments of a traced function.
template <class T>
concept SpecTree = Tree<std::remove_cvref_t<T>>::isSpecTree;

/// A structure of concrete tensors (ValueTree.h).
template <class T>
concept ValueTree = Tree<std::remove_cvref_t<T>>::isValueTree;

/// A flat list of leaves, with a read position. `rebuild` puts them into a
/// tree shaped like another one, whatever that one's leaves are: a tree of
/// Tensors and a list of interp::Tensors give the same tree of values.
template <class Leaf>
struct LeafCursorOf {
  const std::vector<Leaf> &leaves;
  size_t next = 0;
  const Leaf &take() { return leaves.at(next++); }
};
using LeafCursor = LeafCursorOf<Tensor>;
/// The same over a list rebuilt once: each leaf is moved out of it.
template <class Leaf>
struct MovingLeafCursorOf {
  std::vector<Leaf> &leaves;
  size_t next = 0;
  Leaf &&take() { return std::move(leaves.at(next++)); }
};

template <>
struct Tree<Tensor> {
  static constexpr bool isTensorTree = true;
  static constexpr bool isSpecTree = false;
  static constexpr bool isValueTree = false;
  using Traced = Tensor; // unused: keeps containers' Traced aliases well-formed
  template <class Fn>
  static void forEach(const Tensor &t, const std::string &path, Fn &&fn) {
    fn(path, t);
  }
  template <class V>
  static void walk(const Tensor &t, V &visitor) {
    visitor.leaf(t);
  }
  template <class C>
  static auto rebuild(const Tensor &, C &c) {
    return std::remove_cvref_t<decltype(c.take())>(c.take());
  }
};

template <>
struct Tree<Spec> {
  static constexpr bool isTensorTree = false;
  static constexpr bool isSpecTree = true;
  static constexpr bool isValueTree = false;
  using Traced = Tensor;
  template <class Fn>
  static Tensor materialize(const Spec &s, const std::string &path, Fn &&leaf) {
    return leaf(path, s);
  }
};

template <>
struct Tree<None> {
  static constexpr bool isTensorTree = true;
  static constexpr bool isSpecTree = true;
  static constexpr bool isValueTree = true;
  using Traced = None;
  template <class Fn>
  static void forEach(const None &, const std::string &, Fn &&) {}
  template <class V>
  static void walk(const None &, V &) {}
  template <class C>
  static None rebuild(const None &, C &) { return {}; }
  template <class Fn>
  static None materialize(const None &, const std::string &, Fn &&) {
    return {};
  }
};

template <class T>
struct Tree<std::vector<T>> {
  static constexpr bool isTensorTree = Tree<T>::isTensorTree;
  static constexpr bool isSpecTree = Tree<T>::isSpecTree;
  static constexpr bool isValueTree = Tree<T>::isValueTree;
  template <class Fn>
  static void forEach(const std::vector<T> &v, const std::string &path, Fn &&fn) {
    for (size_t i = 0; i < v.size(); ++i)
      Tree<T>::forEach(v[i], path + "[" + std::to_string(i) + "]", fn);
  }
  template <class V>
  static void walk(const std::vector<T> &v, V &visitor) {
    visitor.shape(v.size());
    for (const T &x : v)
      Tree<T>::walk(x, visitor);
  }
  template <class C>
  static auto rebuild(const std::vector<T> &like, C &c) {
    std::vector<decltype(Tree<T>::rebuild(std::declval<const T &>(), c))> out;
    for (const T &x : like)
      out.push_back(Tree<T>::rebuild(x, c));
    return out;
  }
  template <class Fn>
  static auto materialize(const std::vector<T> &v, const std::string &path, Fn &&leaf) {
    std::vector<typename Tree<T>::Traced> out;
    for (size_t i = 0; i < v.size(); ++i)
      out.push_back(Tree<T>::materialize(v[i], path + "[" + std::to_string(i) + "]", leaf));
    return out;
  }
  using Traced = std::vector<typename Tree<T>::Traced>;
};

template <class T>
struct Tree<std::map<std::string, T>> {
  using Map = std::map<std::string, T>;
  static constexpr bool isTensorTree = Tree<T>::isTensorTree;
  static constexpr bool isSpecTree = Tree<T>::isSpecTree;
  static constexpr bool isValueTree = Tree<T>::isValueTree;
  static std::string key(const std::string &path, const std::string &k) {
    return path + "['" + k + "']";
  }
  template <class Fn>
  static void forEach(const Map &m, const std::string &path, Fn &&fn) {
    for (const auto &[k, v] : m)
      Tree<T>::forEach(v, key(path, k), fn);
  }
  template <class V>
  static void walk(const Map &m, V &visitor) {
    visitor.shape(m.size());
    for (const auto &[k, v] : m) {
      visitor.shape(std::hash<std::string>{}(k));
      Tree<T>::walk(v, visitor);
    }
  }
  template <class C>
  static auto rebuild(const Map &like, C &c) {
    std::map<std::string, decltype(Tree<T>::rebuild(std::declval<const T &>(), c))> out;
    for (const auto &[k, v] : like) // in order: each key goes at the end
      out.emplace_hint(out.end(), k, Tree<T>::rebuild(v, c));
    return out;
  }
  template <class Fn>
  static auto materialize(const Map &m, const std::string &path, Fn &&leaf) {
    std::map<std::string, typename Tree<T>::Traced> out;
    for (const auto &[k, v] : m)
      out.emplace(k, Tree<T>::materialize(v, key(path, k), leaf));
    return out;
  }
  using Traced = std::map<std::string, typename Tree<T>::Traced>;
};

template <class... T>
struct Tree<std::tuple<T...>> {
  using Tup = std::tuple<T...>;
  static constexpr bool isTensorTree = (Tree<T>::isTensorTree && ...);
  static constexpr bool isSpecTree = (Tree<T>::isSpecTree && ...);
  static constexpr bool isValueTree = (Tree<T>::isValueTree && ...);
  static std::string at(const std::string &path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }
  template <class Fn>
  static void forEach(const Tup &t, const std::string &path, Fn &&fn) {
    [&]<size_t... I>(std::index_sequence<I...>) {
      (Tree<T>::forEach(std::get<I>(t), at(path, I), fn), ...);
    }(std::index_sequence_for<T...>{});
  }
  template <class V>
  static void walk(const Tup &t, V &visitor) {
    std::apply([&](const T &...x) { (Tree<T>::walk(x, visitor), ...); }, t);
  }
  template <class C>
  static auto rebuild(const Tup &like, C &c) {
    // Braced initialization evaluates left to right, keeping the leaf order.
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::tuple<decltype(Tree<T>::rebuild(std::get<I>(like), c))...>{
          Tree<T>::rebuild(std::get<I>(like), c)...};
    }(std::index_sequence_for<T...>{});
  }
  template <class Fn>
  static auto materialize(const Tup &t, const std::string &path, Fn &&leaf) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::tuple<typename Tree<T>::Traced...>{
          Tree<T>::materialize(std::get<I>(t), at(path, I), leaf)...};
    }(std::index_sequence_for<T...>{});
  }
  using Traced = std::tuple<typename Tree<T>::Traced...>;
};

template <class A, class B>
struct Tree<std::pair<A, B>> {
  using Pair = std::pair<A, B>;
  static constexpr bool isTensorTree = Tree<A>::isTensorTree && Tree<B>::isTensorTree;
  static constexpr bool isSpecTree = Tree<A>::isSpecTree && Tree<B>::isSpecTree;
  static constexpr bool isValueTree = Tree<A>::isValueTree && Tree<B>::isValueTree;
  template <class Fn>
  static void forEach(const Pair &p, const std::string &path, Fn &&fn) {
    Tree<A>::forEach(p.first, path + "[0]", fn);
    Tree<B>::forEach(p.second, path + "[1]", fn);
  }
  template <class V>
  static void walk(const Pair &p, V &visitor) {
    Tree<A>::walk(p.first, visitor);
    Tree<B>::walk(p.second, visitor);
  }
  template <class C>
  static auto rebuild(const Pair &like, C &c) {
    auto a = Tree<A>::rebuild(like.first, c);
    auto b = Tree<B>::rebuild(like.second, c);
    return std::pair{std::move(a), std::move(b)};
  }
  template <class Fn>
  static auto materialize(const Pair &p, const std::string &path, Fn &&leaf) {
    auto a = Tree<A>::materialize(p.first, path + "[0]", leaf);
    auto b = Tree<B>::materialize(p.second, path + "[1]", leaf);
    return Traced{std::move(a), std::move(b)};
  }
  using Traced = std::pair<typename Tree<A>::Traced, typename Tree<B>::Traced>;
};

/// One field of a registered struct: its name in paths and its member.
template <class S, class M>
struct TreeField {
  using Type = M;
  const char *name;
  M S::*member;
};
template <class S, class M>
constexpr TreeField<S, M> treeField(const char *name, M S::*member) {
  return {name, member};
}

/// A struct as a tree (JAX's register_dataclass). Specialize TreeFields for
/// a struct template over its leaves, listing every field in declaration
/// order, and say how to make the same struct over other leaves:
///
///   template <class L> struct BlockParams { Dict<L> ln; Dict<Dict<L>> attention; };
///   template <class L> struct cotangent::TreeFields<BlockParams<L>> {
///     static constexpr auto fields = std::tuple{
///         treeField("ln", &BlockParams<L>::ln),
///         treeField("attention", &BlockParams<L>::attention)};
///     template <class M> using Rebind = BlockParams<M>;
///   };
///
/// Leaves are named by field as a dict's are: `params['ln']['scale']`.
template <class T>
struct TreeFields;
template <class T>
concept RegisteredStruct = requires { TreeFields<T>::fields; };

template <class T>
  requires RegisteredStruct<T>
struct Tree<T> {
  using Fields = TreeFields<T>;
  template <class Pred>
  static constexpr bool allFields(Pred pred) {
    return std::apply([&](auto... f) { return (pred(f) && ...); }, Fields::fields);
  }
  static constexpr bool isTensorTree =
      allFields([](auto f) { return Tree<typename decltype(f)::Type>::isTensorTree; });
  static constexpr bool isSpecTree =
      allFields([](auto f) { return Tree<typename decltype(f)::Type>::isSpecTree; });
  static constexpr bool isValueTree =
      allFields([](auto f) { return Tree<typename decltype(f)::Type>::isValueTree; });
  using Traced = typename Fields::template Rebind<Tensor>;

  static std::string key(const std::string &path, const char *name) {
    return path + "['" + name + "']";
  }
  template <class Fn>
  static void forEach(const T &s, const std::string &path, Fn &&fn) {
    std::apply(
        [&](auto... f) {
          (Tree<typename decltype(f)::Type>::forEach(s.*(f.member), key(path, f.name), fn), ...);
        },
        Fields::fields);
  }
  template <class V>
  static void walk(const T &s, V &visitor) {
    std::apply(
        [&](auto... f) { (Tree<typename decltype(f)::Type>::walk(s.*(f.member), visitor), ...); },
        Fields::fields);
  }
  template <class C>
  static auto rebuild(const T &like, C &c) {
    using Leaf = std::remove_cvref_t<decltype(c.take())>;
    // Braced initialization evaluates left to right, keeping the leaf order.
    return std::apply(
        [&](auto... f) {
          return typename Fields::template Rebind<Leaf>{
              Tree<typename decltype(f)::Type>::rebuild(like.*(f.member), c)...};
        },
        Fields::fields);
  }
  template <class Fn>
  static auto materialize(const T &s, const std::string &path, Fn &&leaf) {
    return std::apply(
        [&](auto... f) {
          return Traced{Tree<typename decltype(f)::Type>::materialize(s.*(f.member),
                                                                     key(path, f.name), leaf)...};
        },
        Fields::fields);
  }
};

/// The leaves of a tensor tree with their paths (prefixed by `root`).
template <TensorTree T>
std::vector<std::pair<std::string, Tensor>> flattenWithPaths(const T &tree,
                                                             const std::string &root = "") {
  std::vector<std::pair<std::string, Tensor>> out;
  Tree<T>::forEach(tree, root, [&](const std::string &p, const Tensor &t) { out.emplace_back(p, t); });
  return out;
}

/// The leaves of a tensor tree.
template <TensorTree T>
std::vector<Tensor> flatten(const T &tree) {
  std::vector<Tensor> out;
  Tree<T>::forEach(tree, "", [&](const std::string &, const Tensor &t) { out.push_back(t); });
  return out;
}

/// A tree shaped like `like` whose leaves are `leaves`, in order.
template <TensorTree T>
T unflatten(const T &like, const std::vector<Tensor> &leaves) {
  LeafCursor c{leaves};
  return Tree<T>::rebuild(like, c);
}

} // namespace cotangent

#endif // COTANGENT_TRACER_PYTREE_H
