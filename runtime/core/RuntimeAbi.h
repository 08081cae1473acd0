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
#include <span>
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
  bool cInterface;
  Targets targets;
  std::string_view returns, params; ///< its C prototype
};

inline constexpr EntryInfo kEntries[] = {
#define COTANGENT_RUNTIME_ENTRY(Id, Name, CInterface, Targets, Returns, Params)                   \
  {Entry::Id, Name, CInterface ? "_mlir_ciface_" Name : Name, CInterface, Targets, Returns, Params},
#include "runtime/core/RuntimeAbi.def"
};

constexpr const EntryInfo &info(Entry id) { return kEntries[static_cast<unsigned>(id)]; }
/// The function the lowering calls for `id`.
constexpr std::string_view name(Entry id) { return info(id).name; }
/// The symbol a runtime binds for `id`.
constexpr std::string_view symbol(Entry id) { return info(id).symbol; }

/// The entry whose symbol (or, with `byName`, whose called name) is `text`.
constexpr std::optional<Entry> find(std::string_view text, bool byName = false) {
  for (const EntryInfo &e : kEntries)
    if ((byName ? e.name : e.symbol) == text)
      return e.id;
  return std::nullopt;
}

/// The batched product for operands of `elementBits`-bit floats (bf16:
/// `brainFloat`).
constexpr Entry batchMatmul(unsigned elementBits, bool brainFloat) {
  return elementBits == 32   ? Entry::BatchMatmulF32
         : elementBits == 64 ? Entry::BatchMatmulF64
         : brainFloat        ? Entry::BatchMatmulBF16
                             : Entry::BatchMatmulF16;
}
constexpr bool isBatchMatmul(std::string_view called) {
  std::optional<Entry> e = find(called, /*byName=*/true);
  return e && (*e == Entry::BatchMatmulF32 || *e == Entry::BatchMatmulF64 ||
               *e == Entry::BatchMatmulBF16 || *e == Entry::BatchMatmulF16);
}

static_assert(info(Entry::MgpuSetDefaultDevice).id == Entry::MgpuSetDefaultDevice,
              "kEntries is in Entry's order");

} // namespace cotangent::core::abi

#endif // COTANGENT_RUNTIME_CORE_RUNTIMEABI_H
