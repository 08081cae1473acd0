//===- CommandLine.h - what every Cotangent tool does with its flags -*- C++ -*-===//
//
// The tools (cotangent-opt, -interpret, -run, -demo, -bench) share three
// habits, kept here so that they cannot drift apart:
//   - --help lists the tool's own flags, not the hundreds libLLVM registers,
//     and --version names Cotangent's version after LLVM's;
//   - a number is checked against its range while the command line is parsed,
//     so a bad value fails at once, with the range, instead of looping or
//     dividing by zero later (RangeParser);
//   - a named choice that is not one of the choices is answered with the list
//     of valid ones (ChoiceParser; llvm::cl only says it cannot find it).
// Errors go through llvm::cl::Option::error, so they read like LLVM's own
// ("cotangent-demo: for the --block option: ...") and exit with code 1.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COMMON_COMMANDLINE_H
#define COTANGENT_TOOLS_COMMON_COMMANDLINE_H

#include "tools/common/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <string>

namespace cotangent::tools {

/// The line --version adds after LLVM's.
inline void printCotangentVersion(llvm::raw_ostream &os) {
  os << "Cotangent " COTANGENT_VERSION_STRING "\n";
}

/// Before ParseCommandLineOptions: --help shows only `category` (and --help,
/// --version), and --version names Cotangent too.
inline void setUpCommandLine(llvm::cl::OptionCategory &category) {
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::AddExtraVersionPrinter(printCotangentVersion);
}

/// What RangeParser hands to llvm::cl: a number that converts to the flag's
/// type. (llvm::cl's integer parsers are final, and its --print-options code
/// casts a basic_parser<T> to parser<T>; a parsed type of our own avoids both.)
template <typename T, T Min, T Max>
struct InRange {
  T value{};
  operator T() const { return value; }
};

/// Parses a whole number in [Min, Max]; anything else is an error that states
/// the range.
template <typename T, T Min, T Max>
class RangeParser : public llvm::cl::basic_parser<InRange<T, Min, Max>> {
  static_assert(std::numeric_limits<T>::is_integer && Min <= Max);

public:
  using llvm::cl::basic_parser<InRange<T, Min, Max>>::basic_parser;

  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             InRange<T, Min, Max> &result) {
    if (!arg.getAsInteger(0, result.value) && result.value >= Min && result.value <= Max)
      return false;
    return option.error("expected a whole number from " + llvm::Twine(Min) + " to " +
                        llvm::Twine(Max) + ", got '" + arg + "'");
  }

  llvm::StringRef getValueName() const override { return "n"; }

  /// For --print-options / --print-all-options.
  void printOptionDiff(const llvm::cl::Option &option, T value,
                       const llvm::cl::OptionValue<T> &defaultValue, size_t width) const {
    this->printOptionName(option, width);
    llvm::outs() << "= " << value;
    if (defaultValue.hasValue())
      llvm::outs() << " (default: " << defaultValue.getValue() << ")";
    llvm::outs() << "\n";
  }
};

/// An unsigned flag in [Min, Max] (the upper bound keeps sizes within what a
/// run can allocate and counts within what finishes).
template <unsigned Min, unsigned Max = std::numeric_limits<unsigned>::max()>
using UnsignedOpt = llvm::cl::opt<unsigned, false, RangeParser<unsigned, Min, Max>>;

/// Parses one of the names given with llvm::cl::values; anything else is an
/// error that lists them.
template <typename T>
class ChoiceParser : public llvm::cl::parser<T> {
public:
  using llvm::cl::parser<T>::parser;

  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg, T &value) {
    std::string names;
    for (unsigned i = 0, e = this->getNumOptions(); i < e; ++i) {
      if (this->getOption(i) == arg) {
        value = this->Values[i].V.getValue();
        return false;
      }
      names += (i ? ", " : "") + this->getOption(i).str();
    }
    return option.error("'" + arg + "' is not one of: " + names);
  }
};

} // namespace cotangent::tools

namespace llvm::cl {
/// How --print-options reaches RangeParser::printOptionDiff.
template <typename T, T Min, T Max>
struct OptionDiffPrinter<cotangent::tools::InRange<T, Min, Max>, T> {
  void print(const Option &option, const cotangent::tools::RangeParser<T, Min, Max> &parser,
             const T &value, const OptionValue<T> &defaultValue, size_t width) {
    parser.printOptionDiff(option, value, defaultValue, width);
  }
};
} // namespace llvm::cl

#endif // COTANGENT_TOOLS_COMMON_COMMANDLINE_H
