//===- Communicator.cpp - one rank, or MPI's world through its plugin ------===//

#include "runtime/comm/Communicator.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

namespace cotangent::comm {
namespace {

int64_t elementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
  case ElementKind::I64:
    return 8;
  case ElementKind::BF16:
  case ElementKind::F16:
    return 2;
  default:
    return 4;
  }
}

/// A process on its own: each collective is what it means for one rank.
class SingleProcess final : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string name() const override { return "one process"; }
  void allReduceSum(const void *in, void *out, int64_t count, ElementKind kind) override {
    copy(in, out, count * elementBytes(kind));
  }
  void allGather(const void *in, void *out, int64_t bytes) override { copy(in, out, bytes); }
  void reduceScatterSum(const void *in, void *out, int64_t count, ElementKind kind) override {
    copy(in, out, count * elementBytes(kind));
  }
  void sendRecv(const void *send, int dest, void *recv, int source, int64_t bytes) override {
    if (source == 0 && dest == 0)
      copy(send, recv, bytes);
  }
  void barrier() override {}

private:
  static void copy(const void *in, void *out, int64_t bytes) {
    if (in != out && bytes > 0)
      std::memmove(out, in, static_cast<size_t>(bytes));
  }
};

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "cotangent: error: %s\n", message.c_str());
  std::exit(1);
}

/// Where libCotangentMpi.so is: $COTANGENT_MPI_PLUGIN, next to this program
/// (../lib, as installed), or where this build made it.
std::vector<std::string> pluginCandidates() {
  std::vector<std::string> paths;
  if (const char *given = std::getenv("COTANGENT_MPI_PLUGIN"))
    return {given};
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    paths.push_back((exe.parent_path().parent_path() / "lib" / "libCotangentMpi.so").string());
#ifdef COTANGENT_MPI_PLUGIN_PATH
  paths.push_back(COTANGENT_MPI_PLUGIN_PATH);
#endif
  return paths;
}

std::unique_ptr<Communicator> openMpi() {
  std::string tried;
  for (const std::string &path : pluginCandidates()) {
    // Global: Open MPI's own components resolve libmpi's symbols through it.
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      tried += "\n  " + std::string(dlerror());
      continue;
    }
    using Create = Communicator *(*)(std::string *);
    auto create = reinterpret_cast<Create>(dlsym(handle, "cotangent_comm_mpi_create"));
    if (!create)
      die(path + " has no cotangent_comm_mpi_create");
    std::string error;
    Communicator *world = create(&error);
    if (!world)
      die("MPI did not start: " + error);
    return std::unique_ptr<Communicator>(world);
  }
  die("started by an MPI launcher, but Cotangent's MPI plugin (libCotangentMpi.so, built where "
      "Open MPI is installed: apt-get install libopenmpi-dev) cannot be loaded:" + tried);
}

} // namespace

bool launchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
         std::getenv("PMIX_RANK");
}

Communicator &world() {
  static std::unique_ptr<Communicator> group =
      launchedByMpi() ? openMpi() : std::make_unique<SingleProcess>();
  return *group;
}

} // namespace cotangent::comm
