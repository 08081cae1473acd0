//===- PolicyTableGen.cpp - the policy table of the docs, from Policies.def -===//
//
// Writes docs/generated/policies-table.md (or stdout, given "-"): one row per
// remat policy of dialects/jx/Policies.def with its aliases, how it is called
// in IR and in C++ (from its signature), and what it lets the forward keep.
// The build runs it, so the table cannot drift from the parser, the printer,
// the decision function or the tracing API, which the same file drives.
//
//===----------------------------------------------------------------------===//

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Row {
  std::string name, signature, saveable, offloadable;
  std::vector<std::string> aliases;
};

/// How a policy of `signature` is written: in #jx.policy, then in C++.
std::pair<std::string, std::string> spell(const std::string &name, const std::string &signature) {
  if (signature == "Plain")
    return {name, name + "()"};
  if (signature == "Names")
    return {name + "(\"a\", ...)", name + "({\"a\", ...})"};
  if (signature == "SaveOffload")
    return {name + "([\"a\"], [\"b\"], \"device\", \"pinned_host\")",
            name + "({\"a\"}, {\"b\"}, \"device\", \"pinned_host\")"};
  if (signature == "MemoryKinds")
    return {name + "(\"device\", \"pinned_host\")", name + "(\"device\", \"pinned_host\")"};
  if (signature == "Budget")
    return {name + "(1048576) or " + name + "(0.5)", name + "(1 << 20) or " + name + "(0.5)"};
  return {name + "(p, q)", name + "(p, q)"}; // Policies
}

std::vector<Row> rows() {
  std::vector<Row> out = {
#define JX_POLICY(name, signature, saveable, offloadable, ...)                                \
  {#name, #signature, saveable, offloadable, {}},
#include "dialects/jx/Policies.def"
  };
  auto addAlias = [&](const std::string &name, const std::string &alias) {
    for (Row &row : out)
      if (row.name == name)
        row.aliases.push_back(alias);
  };
#define JX_POLICY_ALIAS(alias, name, signature) addAlias(#name, #alias);
#include "dialects/jx/Policies.def"
  return out;
}

void write(std::ostream &os) {
  os << "<!-- Generated from dialects/jx/Policies.def by docs/PolicyTableGen.cpp; do not edit. "
        "-->\n\n"
        "# Remat policies: the table\n\n"
        "Every policy by JAX's name, as `#jx.policy<...>` in IR and as a constructor of\n"
        "`cotangent::policies` in C++ (`tracer/Checkpoint.h`). Aliases parse (and construct) the\n"
        "same policy and print by its name. See `policies.md` for what each keeps in an example.\n\n"
        "| policy | aliases | `#jx.policy<...>` | C++ `policies::` | may be saved | may be "
        "offloaded |\n"
        "|---|---|---|---|---|---|\n";
  for (const Row &row : rows()) {
    auto [ir, cpp] = spell(row.name, row.signature);
    std::string aliases;
    for (const std::string &alias : row.aliases)
      aliases += (aliases.empty() ? "`" : ", `") + alias + "`";
    os << "| `" << row.name << "` | " << (aliases.empty() ? "-" : aliases) << " | `" << ir
       << "` | `" << cpp << "` | " << row.saveable << " | " << row.offloadable << " |\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: cotangent-policy-table OUTPUT.md (or - for stdout)\n";
    return 1;
  }
  if (std::string(argv[1]) == "-") {
    write(std::cout);
    return 0;
  }
  std::ofstream file(argv[1]);
  write(file);
  if (!file) {
    std::cerr << "cotangent-policy-table: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
