//===- MatmulChoice.cpp - the faster matmul library, measured per machine ===//

#include "runtime/cpu/MatmulChoice.h"

#include "runtime/cpu/Threads.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <mutex>
#include <sstream>
#include <vector>

extern "C" {
char *openblas_get_config(void);
char *openblas_get_corename(void);
}

using namespace cotangent;
using cpu::MatmulLibrary;

namespace {

/// Timed runs per calibration product (after one that warms it up); the
/// best counts.
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

/// A training step's products, calibrating the choice: a layer's forward
/// (x W), its input gradient (d W^T), its weight gradient (x^T d), and a
/// wider MLP's forward. {m, n, k, A transposed, B transposed}.
struct CalibrationShape {
  int64_t m, n, k;
  bool aTransposed, bTransposed;
};
constexpr CalibrationShape kCalibration[] = {
    {256, 1024, 1024, false, false},
    {256, 1024, 1024, false, true},
    {1024, 1024, 256, true, false},
    {128, 3072, 768, false, false},
};

/// The best of kTimedRuns seconds of every calibration product on
/// `library`, summed; std::nullopt where it does not take one.
std::optional<double> timeCalibration(MatmulLibrary library, cpu::MatmulRunner run) {
  double total = 0;
  for (const CalibrationShape &shape : kCalibration) {
    const int64_t m = shape.m, n = shape.n, k = shape.k;
    std::vector<float> av(m * k), bv(k * n), cv(m * n);
    for (size_t i = 0; i < av.size(); ++i)
      av[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
    for (size_t i = 0; i < bv.size(); ++i)
      bv[i] = static_cast<float>(i % 5) * 0.25f - 0.5f;
    // A is m x k, stored k x m when transposed; B likewise.
    CotangentMemRef3 a{av.data(), av.data(), 0, {1, m, k},
                       {m * k, shape.aTransposed ? 1 : k, shape.aTransposed ? m : 1}};
    CotangentMemRef3 b{bv.data(), bv.data(), 0, {1, k, n},
                       {k * n, shape.bTransposed ? 1 : n, shape.bTransposed ? k : 1}};
    CotangentMemRef3 c{cv.data(), cv.data(), 0, {1, m, n}, {m * n, n, 1}};
    if (!run(library, a, b, c)) // warm-up: oneDNN makes its primitive
      return std::nullopt;
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < kTimedRuns; ++r) {
      auto start = std::chrono::steady_clock::now();
      run(library, a, b, c);
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    total += best;
  }
  return total;
}

class Choices {
public:
  static Choices &get() {
    static Choices instance;
    return instance;
  }

  MatmulLibrary choose(cpu::MatmulRunner run) {
    std::lock_guard<std::mutex> lock(mutex);
    if (known)
      return *known;
    // Another process may be measuring: the file decides.
    int fd = path.empty() ? -1 : open(path.c_str(), O_RDWR | O_CREAT | O_APPEND, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
      close(fd);
      fd = -1;
    }
    if (fd >= 0)
      readFile();
    if (known) {
      ++counts.fromFile;
    } else {
      known = measure(run);
      ++counts.measured;
      if (fd >= 0)
        writeLine(fd);
    }
    if (fd >= 0) {
      flock(fd, LOCK_UN);
      close(fd);
    }
    return *known;
  }

  std::string file() {
    std::lock_guard<std::mutex> lock(mutex);
    return path;
  }
  const std::string &machine() const { return kind; }
  void setFile(const std::string &file) {
    std::lock_guard<std::mutex> lock(mutex);
    path = file;
    known.reset();
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

  /// The file: "# <machine kind>", then "<library> <oneDNN us> <OpenBLAS
  /// us>" (the calibration's totals). The first answer written wins; a file
  /// of another machine kind (a hash collision) or a malformed line is not
  /// read.
  void readFile() {
    std::ifstream in(path);
    std::string line, word;
    if (!std::getline(in, line) || line != "# " + kind)
      return;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      if (!(fields >> word) || (word != "onednn" && word != "openblas"))
        continue;
      known = word == "onednn" ? MatmulLibrary::OneDnn : MatmulLibrary::OpenBlas;
      return;
    }
  }

  MatmulLibrary measure(cpu::MatmulRunner run) {
    // Each library's runs back to back, after one that warms it up (oneDNN
    // makes its primitives; the other library's threads stop spinning).
    oneDnnSeconds = timeCalibration(MatmulLibrary::OneDnn, run);
    openBlasSeconds = timeCalibration(MatmulLibrary::OpenBlas, run); // OpenBLAS takes any
    if (!oneDnnSeconds) // oneDNN takes none of them
      return MatmulLibrary::OpenBlas;
    return *openBlasSeconds <= cpu::kOpenBlasShare * *oneDnnSeconds ? MatmulLibrary::OpenBlas
                                                                    : MatmulLibrary::OneDnn;
  }

  void writeLine(int fd) {
    std::ostringstream line;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size == 0)
      line << "# " << kind << "\n";
    auto us = [](std::optional<double> s) { return static_cast<int64_t>(s.value_or(-1e-6) * 1e6); };
    line << libraryWord(*known) << ' ' << us(oneDnnSeconds) << ' ' << us(openBlasSeconds) << "\n";
    std::string text = line.str();
    // Best effort: a file that cannot be written leaves the choice to this process.
    [[maybe_unused]] ssize_t written = write(fd, text.data(), text.size());
  }

  std::mutex mutex;
  std::string kind, path;
  std::optional<MatmulLibrary> known;
  std::optional<double> oneDnnSeconds, openBlasSeconds;
  cpu::MatmulChoiceCounts counts;
};

} // namespace

MatmulLibrary cpu::measuredLibrary(MatmulRunner run) { return Choices::get().choose(run); }

std::string cpu::matmulCachePath() { return Choices::get().file(); }

void cpu::setMatmulCachePath(const std::string &path) { Choices::get().setFile(path); }

std::string cpu::matmulMachineKind() { return Choices::get().machine(); }

cpu::MatmulChoiceCounts cpu::matmulChoiceCounts() { return Choices::get().countsSoFar(); }
