//===- ProgramText.h - jx program text for tests and fuzzers ----*- C++ -*-===//
//
// What the generated and templated jx programs of the Catch2 tests and the
// fuzz harnesses share: `$KEY` substitution, tensor type spelling, and the
// list of every policy kind. Header-only and free of Catch2, so the
// harnesses under fuzz/ use it too.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_SUPPORT_PROGRAMTEXT_H
#define COTANGENT_TEST_SUPPORT_PROGRAMTEXT_H

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace cotangent::testing {

/// Replaces every `$KEY` of `text` by its value (longest keys first).
inline std::string subst(std::string text,
                         std::vector<std::pair<std::string, std::string>> values) {
  std::sort(values.begin(), values.end(),
            [](auto &a, auto &b) { return a.first.size() > b.first.size(); });
  for (auto &[key, value] : values) {
    std::string pattern = "$" + key;
    for (size_t pos = text.find(pattern); pos != std::string::npos;
         pos = text.find(pattern, pos + value.size()))
      text.replace(pos, pattern.size(), value);
  }
  return text;
}

/// "tensor<3x4xf64>" from "3x4" and "f64"; "tensor<f64>" for an empty shape.
inline std::string tensorType(const std::string &shape, const std::string &element = "f64") {
  return "tensor<" + shape + (shape.empty() ? "" : "x") + element + ">";
}

/// Every policy kind, as #jx.policy<...> bodies; the named ones refer to the
/// names "a", "b" and "c".
inline const std::vector<std::string> &allPolicies() {
  static const std::vector<std::string> policies = {
      "everything_saveable",
      "nothing_saveable",
      "dots_saveable",
      "dots_with_no_batch_dims_saveable",
      R"(save_only_these_names("a"))",
      R"(save_only_these_names("a", "c"))",
      R"(save_any_names_but_these("b"))",
      R"(save_anything_except_these_names("a", "c"))",
      R"(save_and_offload_only_these_names(["a"], ["b"], "device", "pinned_host"))",
      R"(offload_dot_with_no_batch_dims("device", "pinned_host"))",
      R"(save_from_both_policies(dots_saveable, save_only_these_names("c")))",
      R"(save_from_both_policies(offload_dot_with_no_batch_dims("device", "pinned_host"), save_any_names_but_these("a")))",
      R"(save_from_both_policies(nothing_saveable, save_and_offload_only_these_names([], ["a", "b"], "device", "pinned_host")))",
      "min_residual_bytes",
      "min_residual_bytes_recomputing_dots",
      R"(save_from_both_policies(min_residual_bytes, save_only_these_names("a")))",
  };
  return policies;
}

} // namespace cotangent::testing

#endif // COTANGENT_TEST_SUPPORT_PROGRAMTEXT_H
