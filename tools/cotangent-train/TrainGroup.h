//===- TrainGroup.h - cotangent-train on a group of processes ---*- C++ -*-===//
//
// What the trainer does when mpirun (or --nproc) starts it N times: each
// rank takes its rows of the job's batch, and with --zero 1 holds a block
// of every optimizer-state leaf (optim::zero1). Checkpoints hold the whole
// state whatever the number of processes: the blocks are gathered before
// rank 0 writes and cut again on resume, so a run may resume on another
// process count with the same job batch.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COTANGENT_TRAIN_TRAINGROUP_H
#define COTANGENT_TOOLS_COTANGENT_TRAIN_TRAINGROUP_H

#include "tools/cotangent-train/TrainCheckpoint.h"

#include "runtime/comm/Communicator.h"

#include <cstdint>
#include <vector>

namespace cotangent::train {

/// Rows [first, first + rows) of a row-major [*, seq] token batch.
std::vector<int32_t> rowsOf(const std::vector<int32_t> &tokens, int64_t first, int64_t rows,
                            int64_t seq);

/// This rank's blocks of `full` shaped like `blocks` (zero1's state): an
/// entry of the same type (a step count) is copied, any other is `full`'s
/// leaf flattened, zero-padded and cut into the group's blocks.
HostState blocksOf(const HostState &full, const HostState &blocks, int rank);

/// The whole state from every rank's `blocks` (an all-gather per leaf),
/// shaped like `full`: on every rank.
HostState gatherBlocks(const HostState &blocks, const HostState &full, comm::Communicator &group);

/// Whether every rank says `ok` (a sum over the group: also a barrier).
bool allAgree(bool ok, comm::Communicator &group);

/// Every rank's timeline (runtime/comm/Timeline.h) gathered; rank 0 writes
/// them to `path` as one trace (one process per rank). The error, or "".
std::string writeTimeline(const std::string &path, comm::Communicator &group);

/// Execs `mpirun -np N` (Open MPI; with --allow-run-as-root as root and
/// --oversubscribe) on this program's arguments without --nproc. Returns
/// only when mpirun could not be started: the error.
std::string relaunchUnderMpirun(int argc, char **argv, unsigned ranks);

} // namespace cotangent::train

#endif // COTANGENT_TOOLS_COTANGENT_TRAIN_TRAINGROUP_H
