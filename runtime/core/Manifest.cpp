//===- Manifest.cpp - writing and parsing a step's manifest ---------------===//
//
//   cotangent-manifest 1
//   target cuda sm_80,sm_90
//   function mlp_fwd _cotangent_packed_mlp_fwd
//     arg f32 [8,16]
//     result f32 [8,4] device
//     result f32 [8,32] pinned_host
//   split mlp mlp_fwd mlp_bwd 1
//   plan mlp 5248 4096
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Manifest.h"

#include <algorithm>
#include <sstream>

namespace cotangent::core {

namespace {

bool parseType(std::istringstream &line, TensorType &type) {
  std::string dtype, shape;
  if (!(line >> dtype >> shape) || shape.size() < 2 || shape.front() != '[' ||
      shape.back() != ']')
    return false;
  bool known = false;
  for (int d = 0; d <= static_cast<int>(DType::I1); ++d)
    if (dtype == dtypeName(static_cast<DType>(d))) {
      type.dtype = static_cast<DType>(d);
      known = true;
    }
  if (!known)
    return false;
  std::istringstream dims(shape.substr(1, shape.size() - 2));
  for (std::string dim; std::getline(dims, dim, ',');) {
    try {
      size_t used = 0;
      int64_t v = std::stoll(dim, &used);
      if (used != dim.size() || v < 0)
        return false;
      type.shape.push_back(v);
    } catch (...) {
      return false;
    }
  }
  return true;
}

void writeType(std::ostringstream &out, const TensorType &type) {
  out << dtypeName(type.dtype) << " [";
  for (size_t i = 0; i < type.shape.size(); ++i)
    out << (i ? "," : "") << type.shape[i];
  out << "]";
}

} // namespace

std::string writeManifest(const Manifest &manifest) {
  std::ostringstream out;
  out << "cotangent-manifest 1\ntarget " << manifest.target << "\n";
  for (const auto &[name, fn] : manifest.functions) {
    out << "function " << name << " " << fn.entry << "\n";
    for (const TensorType &t : fn.args) {
      out << "  arg ";
      writeType(out, t);
      out << "\n";
    }
    for (size_t i = 0; i < fn.results.size(); ++i) {
      out << "  result ";
      writeType(out, fn.results[i]);
      out << (fn.pinnedHost[i] ? " pinned_host\n" : " device\n");
    }
  }
  for (const Split &split : manifest.splits) {
    out << "split " << split.base << " " << split.fwd << " " << split.bwd << " "
        << split.numOutputs << "\n";
    if (split.predictedPeakBytes >= 0)
      out << "plan " << split.base << " " << split.predictedPeakBytes << " "
          << split.predictedResidualBytes << "\n";
  }
  return out.str();
}

bool parseManifest(const std::string &text, Manifest &manifest, std::string &error) {
  std::istringstream in(text);
  std::string raw;
  Function *current = nullptr;
  int number = 0;
  auto fail = [&](const std::string &why) {
    error = "manifest line " + std::to_string(number) + ": " + why + " in '" + raw + "'";
    return false;
  };
  while (std::getline(in, raw)) {
    ++number;
    std::istringstream line(raw);
    std::string word;
    if (!(line >> word))
      continue;
    if (number == 1) {
      std::string version;
      if (word != "cotangent-manifest" || !(line >> version) || version != "1")
        return fail("not a cotangent-manifest 1");
      continue;
    }
    if (word == "target") {
      std::getline(line >> std::ws, manifest.target);
    } else if (word == "function") {
      Function fn;
      if (!(line >> fn.name >> fn.entry))
        return fail("expected 'function NAME ENTRY'");
      current = &(manifest.functions[fn.name] = fn);
    } else if (word == "arg" || word == "result") {
      TensorType type;
      if (!current || !parseType(line, type))
        return fail("expected '" + word + " DTYPE [DIMS]' inside a function");
      if (word == "arg") {
        current->args.push_back(type);
        continue;
      }
      std::string kind;
      if (!(line >> kind) || (kind != "device" && kind != "pinned_host"))
        return fail("expected the memory kind device or pinned_host");
      current->results.push_back(type);
      current->pinnedHost.push_back(kind == "pinned_host");
    } else if (word == "split") {
      Split split;
      if (!(line >> split.base >> split.fwd >> split.bwd >> split.numOutputs))
        return fail("expected 'split BASE FWD BWD OUTPUTS'");
      manifest.splits.push_back(split);
    } else if (word == "plan") {
      std::string base;
      int64_t peak = -1, residual = -1;
      if (!(line >> base >> peak >> residual) || peak < 0 || residual < 0)
        return fail("expected 'plan BASE PEAK_BYTES RESIDUAL_BYTES'");
      auto split = std::find_if(manifest.splits.begin(), manifest.splits.end(),
                                [&](const Split &s) { return s.base == base; });
      if (split == manifest.splits.end())
        return fail("a plan for '" + base + "', which no split before it names");
      split->predictedPeakBytes = peak;
      split->predictedResidualBytes = residual;
    } else {
      return fail("unknown item '" + word + "'");
    }
  }
  if (number == 0)
    return error = "empty manifest", false;
  for (const Split &split : manifest.splits) {
    auto fwd = manifest.functions.find(split.fwd), bwd = manifest.functions.find(split.bwd);
    if (fwd == manifest.functions.end() || bwd == manifest.functions.end() ||
        split.numOutputs < 0 ||
        split.numOutputs > static_cast<int64_t>(fwd->second.results.size()) ||
        // residuals, then one cotangent per output: one per forward result
        bwd->second.args.size() != fwd->second.results.size())
      return error = "manifest: split " + split.base + " does not match its functions", false;
  }
  return true;
}

} // namespace cotangent::core
