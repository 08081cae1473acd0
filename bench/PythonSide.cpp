//===- PythonSide.cpp - the anchors' side of a bench, in their own venv ----===//

#include "bench/PythonSide.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace cotangent;

std::optional<std::string> bench::standardOutputOf(llvm::ArrayRef<llvm::StringRef> argv) {
  llvm::SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("cotangent-bench", "txt", out))
    return std::nullopt;
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(out), std::nullopt};
  int code = llvm::sys::ExecuteAndWait(argv.front(), argv, std::nullopt, redirects);
  auto text = llvm::MemoryBuffer::getFile(out);
  llvm::sys::fs::remove(out);
  if (code != 0 || !text)
    return std::nullopt;
  return (*text)->getBuffer().str();
}

std::optional<std::string> bench::venvPython(llvm::StringRef script, llvm::StringRef venv) {
  const std::string path = COTANGENT_SOURCE_DIR "/scripts/" + script.str();
  const std::string dir = COTANGENT_BUILD_DIR "/" + venv.str();
  std::optional<std::string> out = standardOutputOf({path, dir});
  if (!out)
    return std::nullopt;
  llvm::StringRef lines = llvm::StringRef(*out).rtrim();
  return lines.rsplit('\n').second.empty() ? lines.str() : lines.rsplit('\n').second.str();
}

std::optional<llvm::json::Object> bench::runRows(const std::string &python,
                                                 llvm::StringRef script, llvm::json::Array rows,
                                                 std::string &why) {
  llvm::SmallString<128> rowsPath, outPath;
  if (llvm::sys::fs::createTemporaryFile("cotangent-bench-rows", "json", rowsPath) ||
      llvm::sys::fs::createTemporaryFile("cotangent-bench-figures", "json", outPath)) {
    why = "cannot create temporary files";
    return std::nullopt;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(rowsPath, ec);
    os << llvm::json::Value(std::move(rows));
  }
  const std::string name = "bench/" + script.str();
  const std::string path = COTANGENT_SOURCE_DIR "/" + name;
  llvm::SmallVector<llvm::StringRef> argv{python, path, rowsPath, outPath};
  std::string message;
  int code = llvm::sys::ExecuteAndWait(python, argv, std::nullopt, {}, 0, 0, &message);
  auto text = llvm::MemoryBuffer::getFile(outPath);
  llvm::sys::fs::remove(rowsPath);
  llvm::sys::fs::remove(outPath);
  if (code != 0 || !text) {
    why = name + " failed" + (message.empty() ? "" : ": " + message);
    return std::nullopt;
  }
  auto parsed = llvm::json::parse((*text)->getBuffer());
  if (!parsed || !parsed->getAsObject()) {
    why = name + " wrote no JSON object";
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  return std::move(*parsed->getAsObject());
}

std::optional<llvm::json::Object> bench::rowFigures(const llvm::json::Object &out,
                                                    llvm::StringRef id, llvm::StringRef script,
                                                    std::string &why) {
  const llvm::json::Object *rows = out.getObject("rows");
  const llvm::json::Object *figures = rows ? rows->getObject(id) : nullptr;
  if (!figures) {
    why = "bench/" + script.str() + " wrote no figures";
    return std::nullopt;
  }
  if (auto error = figures->getString("error")) {
    why = error->str();
    return std::nullopt;
  }
  return *figures;
}
