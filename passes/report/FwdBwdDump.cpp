//===- FwdBwdDump.cpp - forward and backward side by side -----------------===//

#include "passes/report/FwdBwdDump.h"
#include "passes/report/JaxprPrinter.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <sys/ioctl.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::cotangent;

namespace {

/// Splits `text` into lines of at most `width` characters.
std::vector<std::string> wrap(StringRef text, size_t width) {
  std::vector<std::string> out;
  SmallVector<StringRef> lines;
  text.rtrim('\n').split(lines, '\n');
  for (StringRef line : lines) {
    line = line.rtrim();
    if (line.empty()) {
      out.emplace_back();
      continue;
    }
    // Continuation lines keep the line's indentation plus two spaces.
    size_t indent = std::min(line.find_first_not_of(' '), width / 2);
    bool first = true;
    while (!line.empty()) {
      size_t room = first ? width : width - indent - 2;
      std::string prefix = first ? "" : std::string(indent + 2, ' ');
      out.push_back(prefix + line.take_front(room).str());
      line = line.drop_front(std::min(room, line.size()));
      first = false;
    }
  }
  return out;
}

std::string printOne(func::FuncOp fn, DumpSyntax syntax) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (syntax == DumpSyntax::Jaxpr)
    printJaxpr(fn, os, /*oneLineWidth=*/0); // one equation a line, to read across
  else
    fn.print(os, OpPrintingFlags().printGenericOpForm(false));
  return text;
}

} // namespace

unsigned mlir::cotangent::terminalWidth() {
  if (const char *columns = std::getenv("COLUMNS")) {
    unsigned value = 0;
    if (!StringRef(columns).getAsInteger(10, value) && value >= 40)
      return value;
  }
  struct winsize size {};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40)
    return size.ws_col;
  return 160;
}

std::string mlir::cotangent::sideBySide(StringRef left, StringRef right, StringRef leftTitle,
                                        StringRef rightTitle, unsigned width) {
  size_t column = std::max<size_t>((std::max(width, 40u) - 3) / 2, 16);
  std::vector<std::string> l = wrap(left, column), r = wrap(right, column);
  std::string out;
  auto row = [&](StringRef a, StringRef b) {
    std::string line = a.str() + std::string(column - a.size(), ' ') + " | " + b.str();
    out += StringRef(line).rtrim().str() + "\n";
  };
  row(leftTitle.take_front(column), rightTitle.take_front(column));
  row(std::string(column, '-'), std::string(column, '-'));
  for (size_t i = 0; i < std::max(l.size(), r.size()); ++i)
    row(i < l.size() ? l[i] : "", i < r.size() ? r[i] : "");
  return out;
}

std::string mlir::cotangent::printFwdBwd(func::FuncOp fwd, func::FuncOp bwd, DumpSyntax syntax,
                                         unsigned width) {
  return sideBySide(printOne(fwd, syntax), printOne(bwd, syntax),
                    ("forward @" + fwd.getSymName()).str(), ("backward @" + bwd.getSymName()).str(),
                    width ? width : terminalWidth());
}
