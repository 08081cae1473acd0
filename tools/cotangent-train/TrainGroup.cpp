//===- TrainGroup.cpp - rows, state blocks and mpirun for the trainer -----===//

#include "tools/cotangent-train/TrainGroup.h"

#include "runtime/comm/Timeline.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace cotangent::train {

std::vector<int32_t> rowsOf(const std::vector<int32_t> &tokens, int64_t first, int64_t rows,
                            int64_t seq) {
  return {tokens.begin() + first * seq, tokens.begin() + (first + rows) * seq};
}

HostState blocksOf(const HostState &full, const HostState &blocks, int rank) {
  HostState out;
  for (const auto &[name, block] : blocks) {
    const interp::Tensor &leaf = full.at(name);
    if (leaf.getType() == block.getType()) {
      out.emplace(name, leaf.clone());
      continue;
    }
    interp::Tensor mine(block.getType()); // zeros: the padding
    const int64_t bytes = block.getByteSize(), offset = rank * bytes;
    const int64_t count = std::min(bytes, std::max<int64_t>(0, leaf.getByteSize() - offset));
    if (count > 0)
      std::memcpy(mine.data(), leaf.data() + offset, static_cast<size_t>(count));
    out.emplace(name, std::move(mine));
  }
  return out;
}

HostState gatherBlocks(const HostState &blocks, const HostState &full, comm::Communicator &group) {
  HostState out;
  for (const auto &[name, block] : blocks) {
    const interp::Tensor &like = full.at(name);
    if (like.getType() == block.getType()) {
      out.emplace(name, block.clone());
      continue;
    }
    std::vector<char> all(static_cast<size_t>(block.getByteSize() * group.size()));
    group.allGather(block.data(), all.data(), block.getByteSize());
    interp::Tensor leaf(like.getType());
    std::memcpy(leaf.data(), all.data(), static_cast<size_t>(leaf.getByteSize()));
    out.emplace(name, std::move(leaf));
  }
  return out;
}

bool allAgree(bool ok, comm::Communicator &group) {
  int32_t failed = ok ? 0 : 1, anyFailed = 0;
  group.allReduceSum(&failed, &anyFailed, 1, comm::ElementKind::I32);
  return anyFailed == 0;
}

std::string writeTimeline(const std::string &path, comm::Communicator &group) {
  // Events of different lengths: the longest sets the size of every rank's share.
  std::string mine = comm::timeline::events(group.rank());
  int64_t length = static_cast<int64_t>(mine.size()), longest = 0;
  std::vector<int64_t> lengths(group.size());
  group.allGather(&length, lengths.data(), sizeof length);
  for (int64_t l : lengths)
    longest = std::max(longest, l);
  mine.resize(static_cast<size_t>(longest));
  std::vector<char> all(static_cast<size_t>(longest * group.size()));
  group.allGather(mine.data(), all.data(), longest);
  if (group.rank() != 0)
    return "";
  std::ofstream out(path);
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  for (int r = 0; r < group.size(); ++r) {
    if (lengths[r] == 0)
      continue;
    out << (first ? "" : ",\n") << std::string(all.data() + r * longest, lengths[r]);
    first = false;
  }
  out << "\n]}\n";
  return out ? "" : path + ": cannot write the timeline";
}

std::string relaunchUnderMpirun(int argc, char **argv, unsigned ranks) {
  std::vector<std::string> args = {"mpirun", "-np", std::to_string(ranks), "--oversubscribe"};
  if (geteuid() == 0)
    args.push_back("--allow-run-as-root");
  args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--nproc" || a == "-nproc") {
      ++i; // and its value
      continue;
    }
    if (a.starts_with("--nproc=") || a.starts_with("-nproc="))
      continue;
    args.push_back(a);
  }
  // Containers often forbid the cross-process copies of Open MPI's shared
  // memory transport (ptrace): plain shared memory instead.
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", /*overwrite=*/0);
  std::vector<char *> cargs;
  for (std::string &a : args)
    cargs.push_back(a.data());
  cargs.push_back(nullptr);
  execvp("mpirun", cargs.data());
  return std::string("--nproc: cannot start mpirun (") + std::strerror(errno) +
         "): --nproc needs Open MPI (apt-get install openmpi-bin)";
}

} // namespace cotangent::train
