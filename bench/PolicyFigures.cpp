//===- PolicyFigures.cpp - time and memory of a grad step per policy ------===//

#include "bench/PolicyFigures.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace cotangent;
using namespace cotangent::bench;

double bench::median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

llvm::FailureOr<PolicyFigures> bench::timeSplit(std::string policy, cpu::CpuModule &module,
                                                llvm::StringRef base,
                                                llvm::ArrayRef<cpu::Tensor> args,
                                                llvm::ArrayRef<cpu::Tensor> cotangents,
                                                unsigned repeats, cpu::SplitResult *last) {
  PolicyFigures figures;
  figures.policy = std::move(policy);
  for (unsigned r = 0; r < std::max(repeats, 1u); ++r) {
    auto run = module.runSplit(base, args, cotangents);
    if (llvm::failed(run))
      return llvm::failure();
    figures.seconds.push_back(run->seconds);
    figures.residualBytes = run->residualBytes;
    figures.peakBytes = run->peakBytes;
    figures.residuals = run->numResiduals;
    if (last)
      *last = std::move(*run);
  }
  return figures;
}

llvm::Error bench::writePolicyData(llvm::StringRef path, llvm::StringRef title,
                                   llvm::ArrayRef<PolicyFigures> rows) {
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write %s: %s", path.str().c_str(),
                                   ec.message().c_str());
  llvm::json::OStream json(file, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("title", title);
    json.attributeArray("rows", [&] {
      for (const PolicyFigures &row : rows) {
        auto [min, max] = std::minmax_element(row.seconds.begin(), row.seconds.end());
        json.object([&] {
          json.attribute("policy", row.policy);
          json.attribute("time_ms", row.medianSeconds() * 1e3);
          json.attribute("time_ms_min", row.seconds.empty() ? 0.0 : *min * 1e3);
          json.attribute("time_ms_max", row.seconds.empty() ? 0.0 : *max * 1e3);
          json.attribute("runs", static_cast<int64_t>(row.seconds.size()));
          json.attribute("peak_bytes", row.peakBytes);
          json.attribute("residual_bytes", row.residualBytes);
          json.attribute("residuals", row.residuals);
        });
      }
    });
  });
  file << "\n";
  file.close();
  if (std::error_code error = file.error()) {
    file.clear_error(); // or the stream's destructor aborts
    return llvm::createStringError(error, "cannot write %s", path.str().c_str());
  }
  return llvm::Error::success();
}
