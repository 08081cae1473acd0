//===- NestingDepth.h - refuse input nested deeper than MLIR can recurse -*- C++ -*-===//
//
// MLIR's parser, verifier and walks recurse once per nested region (and per
// nested bracket of a type or attribute); with the default 8 MiB stack a
// program of a few thousand nested jx.remat regions overflows it, and the
// process dies with SIGSEGV. The tools check the text first: brackets
// (`{`, `(`, `[`) nested more than kMaxNesting deep, outside strings and
// comments, are an error at the first bracket past the limit. Real programs
// nest a few levels; the limit leaves the parser and the passes room (2000
// nested regions still pass through every pipeline).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COMMON_NESTINGDEPTH_H
#define COTANGENT_TOOLS_COMMON_NESTINGDEPTH_H

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace cotangent::tools {

constexpr unsigned kMaxNesting = 1024;

/// True when `buffer` nests brackets at most kMaxNesting deep; otherwise
/// prints "<file>:<line>:<col>: error: ..." to `errs` and returns false.
inline bool checkNestingDepth(const llvm::MemoryBuffer &buffer, llvm::raw_ostream &errs) {
  llvm::StringRef text = buffer.getBuffer();
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') { // a string: skip to its closing quote
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < text.size() && text[i] == '\n')
        --i; // an unterminated string: the parser reports it
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '{' || c == '(' || c == '[') {
      if (++depth > kMaxNesting) {
        errs << buffer.getBufferIdentifier() << ":" << line << ":" << (i - lineStart + 1)
             << ": error: brackets nested more than " << kMaxNesting
             << " deep; MLIR's parser and passes recurse once per level, so Cotangent "
                "refuses deeper input\n";
        return false;
      }
    } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return true;
}

} // namespace cotangent::tools

#endif // COTANGENT_TOOLS_COMMON_NESTINGDEPTH_H
