//===- Einsum.cpp - np::einsum as dot_generals and transposes -------------===//
//
// The spec is parsed into one label per axis (an ellipsis becomes labels of
// its own, right-aligned across operands); operands are contracted left to
// right, each pair by one dot_general that keeps the labels still needed
// (by the output or a later operand) and sums the rest; the result is
// transposed into the output's order.
//
//===----------------------------------------------------------------------===//

#include "tracer/Errors.h"
#include "tracer/Numpy.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace cotangent::np {

namespace {

/// An operand with one label per axis.
struct Labelled {
  Tensor tensor;
  std::vector<char> labels;
};

/// Labels standing for ellipsis axes: not letters, so never the user's.
char ellipsisLabel(size_t i) { return static_cast<char>('0' + i); }

[[noreturn]] void fail(const std::string &spec, const std::string &what,
                       const std::vector<Tensor> &operands, const SrcLoc &loc) {
  std::vector<std::string> shapes;
  for (const Tensor &t : operands)
    shapes.push_back(t.str());
  throwTraceError("einsum", "'" + spec + "': " + what, shapes, loc);
}

/// Sums the axes whose labels are not in `keep`.
Labelled sumOut(Labelled x, const std::set<char> &keep, const SrcLoc &loc) {
  std::vector<int64_t> axes;
  std::vector<char> kept;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (keep.count(x.labels[i]))
      kept.push_back(x.labels[i]);
    else
      axes.push_back(static_cast<int64_t>(i));
  }
  if (axes.empty())
    return x;
  return {sum(x.tensor, Axes(axes), /*keepdims=*/false, loc), kept};
}

/// One dot_general of a and b keeping the labels in `keep`.
Labelled contract(const Labelled &a, const Labelled &b, const std::set<char> &keep,
                  const SrcLoc &loc) {
  std::vector<int64_t> lc, rc, lb, rb;
  std::vector<char> batch, freeA, freeB;
  auto indexIn = [](const std::vector<char> &labels, char c) {
    return static_cast<int64_t>(std::find(labels.begin(), labels.end(), c) - labels.begin());
  };
  for (char c : a.labels) {
    bool inB = std::count(b.labels.begin(), b.labels.end(), c) > 0;
    if (inB && keep.count(c)) {
      lb.push_back(indexIn(a.labels, c));
      rb.push_back(indexIn(b.labels, c));
      batch.push_back(c);
    } else if (inB) {
      lc.push_back(indexIn(a.labels, c));
      rc.push_back(indexIn(b.labels, c));
    } else {
      freeA.push_back(c);
    }
  }
  for (char c : b.labels)
    if (!std::count(a.labels.begin(), a.labels.end(), c))
      freeB.push_back(c);
  std::vector<char> labels = batch;
  labels.insert(labels.end(), freeA.begin(), freeA.end());
  labels.insert(labels.end(), freeB.begin(), freeB.end());
  return {dot_general(a.tensor, b.tensor, lc, rc, lb, rb, loc), labels};
}

} // namespace

Tensor einsum(const std::string &specIn, const std::vector<Tensor> &operands, SrcLoc loc) {
  std::string spec;
  for (char c : specIn)
    if (c != ' ')
      spec += c;
  if (operands.empty())
    fail(specIn, "needs at least one operand", operands, loc);
  size_t arrow = spec.find("->");
  std::string inputs = spec.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : inputs) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back() += c;
  }
  if (terms.size() != operands.size())
    fail(specIn,
         std::to_string(terms.size()) + " operand terms for " + std::to_string(operands.size()) +
             " operands",
         operands, loc);

  // Labels per axis; an ellipsis takes the axes the letters leave, and
  // ellipses align from the right, as NumPy broadcasts them.
  std::vector<size_t> extras;
  size_t ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string &term = terms[i];
    size_t dots = term.find("...");
    std::string letters =
        dots == std::string::npos ? term : term.substr(0, dots) + term.substr(dots + 3);
    for (char c : letters)
      if (!std::isalpha(static_cast<unsigned char>(c)))
        fail(specIn, std::string("'") + c + "' is not a letter", operands, loc);
    int64_t rank = operands[i].rank(), named = static_cast<int64_t>(letters.size());
    if (named > rank || (dots == std::string::npos && named != rank))
      fail(specIn,
           "term '" + term + "' does not fit operand " + std::to_string(i) + " of rank " +
               std::to_string(rank),
           operands, loc);
    extras.push_back(static_cast<size_t>(rank - named));
    ellipsis = std::max(ellipsis, extras.back());
  }
  std::vector<Labelled> labelled;
  std::map<char, int64_t> sizes;
  for (size_t i = 0; i < terms.size(); ++i) {
    Labelled x{operands[i], {}};
    for (size_t k = 0; k < terms[i].size();) {
      if (terms[i].compare(k, 3, "...") == 0) {
        for (size_t e = 0; e < extras[i]; ++e)
          x.labels.push_back(ellipsisLabel(ellipsis - extras[i] + e));
        k += 3;
      } else {
        x.labels.push_back(terms[i][k++]);
      }
    }
    labelled.push_back(std::move(x));
  }
  for (const Labelled &x : labelled) {
    std::set<char> seen;
    for (size_t k = 0; k < x.labels.size(); ++k) {
      char c = x.labels[k];
      if (!seen.insert(c).second)
        fail(specIn,
             std::string("'") + c + "' repeats within one term (diagonals are not supported)",
             operands, loc);
      int64_t size = x.tensor.shape()[k];
      auto [it, fresh] = sizes.emplace(c, size);
      if (!fresh && it->second != size)
        fail(specIn,
             "'" + (std::isalpha(static_cast<unsigned char>(c)) ? std::string(1, c) : "...") +
                 "' is " + std::to_string(it->second) + " in one operand and " +
                 std::to_string(size) + " in another",
             operands, loc);
    }
  }

  // The output's labels.
  std::vector<char> output;
  if (arrow == std::string::npos) {
    for (size_t e = 0; e < ellipsis; ++e)
      output.push_back(ellipsisLabel(e));
    std::map<char, int> counts;
    for (const Labelled &x : labelled)
      for (char c : x.labels)
        ++counts[c];
    for (auto [c, n] : counts)
      if (n == 1 && std::isalpha(static_cast<unsigned char>(c)))
        output.push_back(c);
  } else {
    std::string out = spec.substr(arrow + 2);
    for (size_t k = 0; k < out.size();) {
      if (out.compare(k, 3, "...") == 0) {
        for (size_t e = 0; e < ellipsis; ++e)
          output.push_back(ellipsisLabel(e));
        k += 3;
        continue;
      }
      char c = out[k++];
      if (!sizes.count(c))
        fail(specIn, std::string("the output's '") + c + "' is in no operand", operands, loc);
      if (std::count(output.begin(), output.end(), c))
        fail(specIn, std::string("the output repeats '") + c + "'", operands, loc);
      output.push_back(c);
    }
  }

  // Contract left to right, keeping what the output or a later operand needs.
  auto needed = [&](size_t after) {
    std::set<char> keep(output.begin(), output.end());
    for (size_t j = after; j < labelled.size(); ++j)
      keep.insert(labelled[j].labels.begin(), labelled[j].labels.end());
    return keep;
  };
  Labelled acc = labelled[0];
  for (size_t i = 1; i < labelled.size(); ++i) {
    std::set<char> keep = needed(i + 1);
    std::set<char> forAcc = keep, forNext = keep;
    forAcc.insert(labelled[i].labels.begin(), labelled[i].labels.end());
    acc = sumOut(acc, forAcc, loc);
    forNext.insert(acc.labels.begin(), acc.labels.end());
    acc = contract(acc, sumOut(labelled[i], forNext, loc), keep, loc);
  }
  acc = sumOut(acc, std::set<char>(output.begin(), output.end()), loc);

  std::vector<int64_t> perm;
  for (char c : output)
    perm.push_back(static_cast<int64_t>(std::find(acc.labels.begin(), acc.labels.end(), c) -
                                        acc.labels.begin()));
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  return identity ? acc.tensor : transpose(acc.tensor, perm, loc);
}

} // namespace cotangent::np
