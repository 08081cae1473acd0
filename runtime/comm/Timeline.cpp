//===- Timeline.cpp - spans recorded for the trace --------------------------===//

#include "runtime/comm/Timeline.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <vector>

namespace cotangent::comm::timeline {
namespace {

struct Span {
  std::string name, thread;
  double begin, end;
  int64_t bytes;
};

std::atomic<bool> on{false};
std::chrono::steady_clock::time_point zero;
std::mutex mutex;
std::vector<Span> spans;

std::string escaped(const std::string &s) {
  std::string out;
  for (char c : s)
    out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out;
}

} // namespace

void enable() {
  std::lock_guard<std::mutex> lock(mutex);
  zero = std::chrono::steady_clock::now();
  spans.clear();
  on = true;
}

bool enabled() { return on; }

double now() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - zero).count();
}

void record(const std::string &name, const std::string &thread, double begin, double end,
            int64_t bytes) {
  if (!on)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  spans.push_back({name, thread, begin, end, bytes});
}

std::string events(int rank) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string out;
  char buffer[160];
  for (const Span &s : spans) {
    std::snprintf(buffer, sizeof buffer, "\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,", s.begin,
                  s.end - s.begin, rank);
    out += (out.empty() ? "" : ",\n") + std::string("{\"name\":\"") + escaped(s.name) +
           "\",\"ph\":\"X\"," + buffer + "\"tid\":\"" + escaped(s.thread) +
           "\",\"args\":{\"bytes\":" + std::to_string(s.bytes) + "}}";
  }
  return out;
}

} // namespace cotangent::comm::timeline
