//===- PolicyKind.h - the remat policies, by JAX's names --------*- C++ -*-===//
//
// The enum of remat policies and what the table in Policies.def says of each:
// its name, its aliases, and its signature (which arguments it takes). Free of
// MLIR's IR headers, so that the docs generator can include it alone.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_POLICYKIND_H
#define COTANGENT_DIALECTS_JX_POLICYKIND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::jx {

/// A remat policy, by JAX's name (see Policies.def).
enum class PolicyKind : uint32_t {
#define JX_POLICY(name, ...) name,
#include "dialects/jx/Policies.def"
};

/// How a policy is called: the arguments of its #jx.policy and of its C++
/// constructor. The parser, printer and verifier switch on this, not on the
/// policy.
enum class PolicySignature {
  Plain,       ///< name
  Names,       ///< name("a", ...)
  SaveOffload, ///< name(["a", ...], ["b", ...], "src", "dst")
  MemoryKinds, ///< name("src", "dst")
  Policies,    ///< name(p, q)
  Budget,      ///< name(bytes) or name(fraction of the peak without remat)
};

/// One accepted spelling of a policy: its primary name or a JAX alias.
struct PolicySpelling {
  llvm::StringLiteral name;
  PolicyKind kind;
  PolicySignature signature;
};

/// Every spelling, primary names first (in Policies.def's order), then aliases.
inline constexpr PolicySpelling kPolicySpellings[] = {
#define JX_POLICY(name, signature, ...)                                                       \
  {#name, PolicyKind::name, PolicySignature::signature},
#define JX_POLICY_ALIAS(alias, name, signature)                                               \
  {#alias, PolicyKind::name, PolicySignature::signature},
#include "dialects/jx/Policies.def"
};

/// The primary name of `kind`.
constexpr llvm::StringRef stringifyPolicyKind(PolicyKind kind) {
  return kPolicySpellings[static_cast<uint32_t>(kind)].name;
}

/// What `kind` takes as arguments.
constexpr PolicySignature getPolicySignature(PolicyKind kind) {
  return kPolicySpellings[static_cast<uint32_t>(kind)].signature;
}

/// The policy spelled `name` (a primary name or an alias), if any.
inline std::optional<PolicyKind> symbolizePolicyKind(llvm::StringRef name) {
  for (const PolicySpelling &spelling : kPolicySpellings)
    if (spelling.name == name)
      return spelling.kind;
  return std::nullopt;
}

// Primary names come first, in the enum's order, and an alias takes the
// arguments of the policy it names.
#define JX_POLICY(name, ...)                                                                  \
  static_assert(kPolicySpellings[static_cast<uint32_t>(PolicyKind::name)].kind ==             \
                PolicyKind::name);
#define JX_POLICY_ALIAS(alias, name, signature)                                               \
  static_assert(getPolicySignature(PolicyKind::name) == PolicySignature::signature,           \
                #alias " must take the arguments of " #name);
#include "dialects/jx/Policies.def"

} // namespace mlir::jx

#endif // COTANGENT_DIALECTS_JX_POLICYKIND_H
