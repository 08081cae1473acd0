//===- Timeline.h - when the collectives and the steps ran -------*- C++ -*-===//
//
// An opt-in record of spans on this process's threads: each collective's
// run on the communication thread, each wait of the step's thread for one,
// and what a tool marks (a training step). As Chrome's trace event format
// (chrome://tracing, Perfetto; tools/plot-timeline.py draws it), one
// process per rank, so the overlap of reductions with the backward shows.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_COMM_TIMELINE_H
#define COTANGENT_RUNTIME_COMM_TIMELINE_H

#include <cstdint>
#include <string>

namespace cotangent::comm::timeline {

/// Starts recording (the clock's zero is now). Off until called.
void enable();
bool enabled();
/// Microseconds since enable().
double now();
/// A span [begin, end] (microseconds) named `name` on `thread` ("step",
/// "communication"), with the bytes it moved (0: none).
void record(const std::string &name, const std::string &thread, double begin, double end,
            int64_t bytes = 0);
/// This process's spans as trace events of process `rank` (a JSON array's
/// elements, comma-separated, no brackets).
std::string events(int rank);

} // namespace cotangent::comm::timeline

#endif // COTANGENT_RUNTIME_COMM_TIMELINE_H
