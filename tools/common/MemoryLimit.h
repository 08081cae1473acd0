//===- MemoryLimit.h - how many bytes this process may hold ------*- C++ -*-===//
//
// The smallest of what limits a run's memory: the address-space and data
// rlimits, the cgroup's memory.max (a container's), and the machine's
// physical memory. The tools compare a memory plan's predicted peak with it
// before anything runs, so a step that cannot fit is an error with figures,
// not an out-of-memory kill halfway through.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COMMON_MEMORYLIMIT_H
#define COTANGENT_TOOLS_COMMON_MEMORYLIMIT_H

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

namespace cotangent::tools {

struct MemoryLimit {
  int64_t bytes;
  std::string source; ///< what sets it, for messages
};

/// The tightest limit found, if any.
inline std::optional<MemoryLimit> processMemoryLimit() {
  std::optional<MemoryLimit> best;
  auto consider = [&](uint64_t bytes, const char *source) {
    if (bytes == 0 || bytes > static_cast<uint64_t>(INT64_MAX))
      return;
    if (!best || static_cast<int64_t>(bytes) < best->bytes)
      best = MemoryLimit{static_cast<int64_t>(bytes), source};
  };
  for (auto [resource, name] : {std::pair{RLIMIT_AS, "the address-space limit (ulimit -v)"},
                                std::pair{RLIMIT_DATA, "the data limit (ulimit -d)"}}) {
    rlimit r{};
    if (getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      consider(r.rlim_cur, name);
  }
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string max;
  if (cgroup >> max && max != "max")
    consider(std::stoull(max), "the cgroup's memory.max");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    consider(static_cast<uint64_t>(pages) * static_cast<uint64_t>(page), "this machine's memory");
  return best;
}

} // namespace cotangent::tools

#endif // COTANGENT_TOOLS_COMMON_MEMORYLIMIT_H
