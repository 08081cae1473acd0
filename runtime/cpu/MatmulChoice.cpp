//===- MatmulChoice.cpp - the faster matmul library, per layout, measured -===//

#include "runtime/cpu/MatmulChoice.h"

#include "runtime/cpu/Threads.h"

#include <oneapi/dnnl/dnnl.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

extern "C" {
char *openblas_get_config(void);
char *openblas_get_corename(void);
}

using namespace cotangent;
using cpu::MatmulLibrary;

namespace {

/// Timed runs per library (after one that warms it up); the best counts.
constexpr int kTimedRuns = 3;

const char *libraryWord(MatmulLibrary library) {
  return library == MatmulLibrary::OneDnn ? "onednn" : "openblas";
}

/// What decides which library is faster, as one line: the CPU, the kernels
/// OpenBLAS and oneDNN picked on it, the threads.
std::string machineKind() {
  std::string model = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  std::ostringstream kind;
  const char *config = openblas_get_config();
  const char *core = openblas_get_corename();
  kind << model << " | OpenBLAS " << (config ? config : "?") << " core " << (core ? core : "?")
       << " | threads " << cpu::threads();
  // oneDNN is dlopened elsewhere; its ISA cap is what the environment says.
  if (const char *isa = std::getenv("ONEDNN_MAX_CPU_ISA"))
    kind << " | ONEDNN_MAX_CPU_ISA " << isa;
  return kind.str();
}

std::string fileName(const std::string &kind) {
  return "matmul-" + std::to_string(std::hash<std::string>{}(kind) % 1000000007) + ".txt";
}

class Choices {
public:
  static Choices &get() {
    static Choices instance;
    return instance;
  }

  MatmulLibrary choose(const cpu::MatmulLayout &layout, cpu::MatmulTimer time, void *context) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(layout); it != known.end())
      return it->second;
    // Another process may be measuring the same layout: the file decides.
    int fd = path.empty() ? -1 : open(path.c_str(), O_RDWR | O_CREAT | O_APPEND, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
      close(fd);
      fd = -1;
    }
    if (fd >= 0) {
      readFile();
      if (auto it = known.find(layout); it != known.end()) {
        ++counts.fromFile;
        flock(fd, LOCK_UN);
        close(fd);
        return it->second;
      }
    }
    MatmulLibrary chosen = measure(layout, time, context, fd);
    if (fd >= 0) {
      flock(fd, LOCK_UN);
      close(fd);
    }
    return chosen;
  }

  std::string file() {
    std::lock_guard<std::mutex> lock(mutex);
    return path;
  }
  const std::string &machine() const { return kind; }
  void setFile(const std::string &file) {
    std::lock_guard<std::mutex> lock(mutex);
    path = file;
    known.clear();
    counts = {};
  }
  cpu::MatmulChoiceCounts countsSoFar() {
    std::lock_guard<std::mutex> lock(mutex);
    return counts;
  }

private:
  Choices() : kind(machineKind()) {
    const char *env = std::getenv("COTANGENT_MATMUL_CACHE");
    if (env && std::strcmp(env, "off") == 0)
      return;
    if (env && *env) {
      path = env;
      return;
    }
    std::string dir;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
      dir = std::string(xdg) + "/cotangent";
    else if (const char *home = std::getenv("HOME"); home && *home)
      dir = std::string(home) + "/.cache/cotangent";
    else
      return;
    // Each level, in case ~/.cache does not exist yet.
    for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
      std::string prefix = dir.substr(0, slash);
      if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
        return;
      if (slash == std::string::npos)
        break;
    }
    path = dir + "/" + fileName(kind);
  }

  /// The file's lines: "# <machine kind>", then per layout its 14 numbers,
  /// the library, and the two best times in microseconds. Lines of another
  /// machine kind (a hash collision) or malformed ones are skipped.
  void readFile() {
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line) || line != "# " + kind)
      return;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      cpu::MatmulLayout layout;
      std::string word;
      bool ok = true;
      for (int64_t &x : layout)
        ok = ok && static_cast<bool>(fields >> x);
      if (!ok || !(fields >> word) || (word != "onednn" && word != "openblas"))
        continue;
      // The first answer written wins, here as in every process.
      known.try_emplace(layout, word == "onednn" ? MatmulLibrary::OneDnn : MatmulLibrary::OpenBlas);
    }
  }

  MatmulLibrary measure(const cpu::MatmulLayout &layout, cpu::MatmulTimer time, void *context,
                        int fd) {
    std::optional<double> best[2];
    const MatmulLibrary libraries[2] = {MatmulLibrary::OneDnn, MatmulLibrary::OpenBlas};
    for (MatmulLibrary library : libraries) // warm up: oneDNN makes its primitive
      if (!time(library, context))
        return known[layout] = MatmulLibrary::OpenBlas; // oneDNN does not take it
    for (int run = 0; run < kTimedRuns; ++run)
      for (int i = 0; i < 2; ++i)
        if (std::optional<double> s = time(libraries[i], context))
          best[i] = std::min(best[i].value_or(*s), *s);
    MatmulLibrary chosen =
        best[0] && (!best[1] || *best[0] <= *best[1]) ? MatmulLibrary::OneDnn
                                                       : MatmulLibrary::OpenBlas;
    known[layout] = chosen;
    ++counts.measured;
    if (fd >= 0) {
      std::ostringstream line;
      struct stat st;
      if (fstat(fd, &st) == 0 && st.st_size == 0)
        line << "# " << kind << "\n";
      for (int64_t x : layout)
        line << x << ' ';
      line << libraryWord(chosen) << ' ' << static_cast<int64_t>(best[0].value_or(-1) * 1e6)
           << ' ' << static_cast<int64_t>(best[1].value_or(-1) * 1e6) << "\n";
      std::string text = line.str();
      // Best effort: a file that cannot be written leaves the choice to this process.
      [[maybe_unused]] ssize_t written = write(fd, text.data(), text.size());
    }
    return chosen;
  }

  std::mutex mutex;
  std::string kind, path;
  std::map<cpu::MatmulLayout, MatmulLibrary> known;
  cpu::MatmulChoiceCounts counts;
};

} // namespace

MatmulLibrary cpu::measuredLibrary(const MatmulLayout &layout, MatmulTimer time, void *context) {
  return Choices::get().choose(layout, time, context);
}

std::string cpu::matmulCachePath() { return Choices::get().file(); }

void cpu::setMatmulCachePath(const std::string &path) { Choices::get().setFile(path); }

std::string cpu::matmulMachineKind() { return Choices::get().machine(); }

cpu::MatmulChoiceCounts cpu::matmulChoiceCounts() { return Choices::get().countsSoFar(); }
