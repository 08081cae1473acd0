//===- RuntimeAbi.h - the runtime ABI as C++ reads it ------------*- C++ -*-===//
//
// RuntimeAbi.def's entries as constants: what the lowering names, what each
// runtime binds, what the AOT header declares. Header-only and constexpr, so
// that passes read the names without linking a runtime.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CORE_RUNTIMEABI_H
#define COTANGENT_RUNTIME_CORE_RUNTIMEABI_H

#include <optional>
#include <string>
#include <string_view>

namespace cotangent::core::abi {

enum class Entry {
#define COTANGENT_RUNTIME_ENTRY(Id, ...) Id,
#include "runtime/core/RuntimeAbi.def"
};

/// The runtimes an entry is called on.
enum Targets : unsigned { Cpu = 1, Cuda = 2, Both = Cpu | Cuda };

struct EntryInfo {
  Entry id;
  std::string_view name;   ///< the function the lowering calls
  std::string_view symbol; ///< what the linker resolves: `_mlir_ciface_<name>` or name
  Targets targets;
  std::string_view returns, params; ///< its C prototype
};

inline constexpr EntryInfo kEntries[] = {
#define COTANGENT_RUNTIME_ENTRY(Id, Name, CInterface, Targets, Returns, Params)                   \
  {Entry::Id, Name, CInterface ? "_mlir_ciface_" Name : Name, Targets, Returns, Params},
#include "runtime/core/RuntimeAbi.def"
};

constexpr const EntryInfo &info(Entry id) { return kEntries[static_cast<unsigned>(id)]; }
/// The symbol a runtime binds for `id`.
constexpr std::string_view symbol(Entry id) { return info(id).symbol; }

/// The entry whose symbol is `text`.
constexpr std::optional<Entry> find(std::string_view text) {
  for (const EntryInfo &e : kEntries)
    if (e.symbol == text)
      return e.id;
  return std::nullopt;
}

/// "void *_mlir_memref_to_llvm_alloc(uint64_t bytes);": the entry's C
/// declaration, as the AOT header writes it.
inline std::string prototype(const EntryInfo &e) {
  std::string text(e.returns);
  if (!text.ends_with('*'))
    text += ' ';
  return text.append(e.symbol).append("(").append(e.params).append(");");
}

static_assert(info(Entry::MgpuSetDefaultDevice).id == Entry::MgpuSetDefaultDevice,
              "kEntries is in Entry's order");

} // namespace cotangent::core::abi

#endif // COTANGENT_RUNTIME_CORE_RUNTIMEABI_H
