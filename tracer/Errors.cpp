//===- Errors.cpp - formatting of TraceError messages ---------------------===//

#include "tracer/Errors.h"

namespace cotangent {

std::string formatLocation(const std::source_location &loc) {
  return std::string(loc.file_name()) + ":" + std::to_string(loc.line());
}

void throwTraceError(std::string_view op, std::string_view what,
                     const std::vector<std::string> &shapes, const std::source_location &loc) {
  std::string msg(op);
  msg += ": ";
  msg += what;
  if (!shapes.empty()) {
    msg += " (operands ";
    for (size_t i = 0; i < shapes.size(); ++i)
      msg += (i ? ", " : "") + shapes[i];
    msg += ")";
  }
  msg += " at " + formatLocation(loc);
  throw TraceError(msg);
}

} // namespace cotangent
