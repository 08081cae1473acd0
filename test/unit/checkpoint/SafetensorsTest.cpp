// checkpoint/Safetensors: files round-trip (tensors of every size, metadata,
// the header padded to 8 bytes as Hugging Face's writer pads it); every
// malformed file is refused naming the file and, where one is at fault,
// the tensor; an atomic write that fails leaves the previous file intact.
#include "checkpoint/Safetensors.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace cotangent;

namespace {

safetensors::File sample() {
  safetensors::File f;
  float w[6] = {1, 2, 3, 4, 5, 6};
  int32_t count = 7;
  f.tensors["h.0.attn.c_attn.weight"] = {"F32", {2, 3}, std::string(reinterpret_cast<char *>(w), 24)};
  f.tensors["count"] = {"I32", {}, std::string(reinterpret_cast<char *>(&count), 4)};
  f.tensors["empty"] = {"BF16", {0, 4}, ""};
  f.metadata["step"] = "7";
  return f;
}

std::string errorOf(std::string_view bytes) {
  std::string error;
  CHECK_FALSE(safetensors::parse(bytes, "ckpt.safetensors", error));
  return error;
}

std::string temporaryDirectory() {
  char name[] = "/tmp/cotangent-safetensors-XXXXXX";
  REQUIRE(::mkdtemp(name));
  return name;
}

} // namespace

TEST_CASE("safetensors files round-trip", "[checkpoint][safetensors]") {
  std::string bytes = safetensors::serialize(sample());
  uint64_t headerBytes = 0;
  std::memcpy(&headerBytes, bytes.data(), 8);
  CHECK(headerBytes % 8 == 0);
  CHECK(bytes.size() == 8 + headerBytes + 24 + 4);
  std::string error;
  auto file = safetensors::parse(bytes, "ckpt", error);
  REQUIRE(file);
  CHECK(file->metadata == sample().metadata);
  REQUIRE(file->tensors.size() == 3);
  for (const auto &[name, t] : sample().tensors) {
    INFO(name);
    CHECK(file->tensors.at(name).dtype == t.dtype);
    CHECK(file->tensors.at(name).shape == t.shape);
    CHECK(file->tensors.at(name).bytes == t.bytes);
  }
}

TEST_CASE("malformed safetensors files are refused by name", "[checkpoint][safetensors][errors]") {
  std::string good = safetensors::serialize(sample());
  CHECK_THAT(errorOf(good.substr(0, 5)), Catch::StartsWith("ckpt.safetensors: too short"));
  CHECK_THAT(errorOf(good.substr(0, 40)),
             Catch::Contains("the header claims") && Catch::Contains("(truncated?)"));
  CHECK_THAT(errorOf(good.substr(0, good.size() - 1)),
             Catch::Contains("tensor 'h.0.attn.c_attn.weight': data_offsets outside"));
  std::string json = "{\"w\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 8]}}";
  auto withHeader = [](const std::string &header, size_t data) {
    std::string out(8, '\0');
    uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    return out + header + std::string(data, '\0');
  };
  CHECK_THAT(errorOf(withHeader(json, 8)),
             Catch::Contains("tensor 'w': 8 bytes for 3 F32 elements"));
  CHECK_THAT(errorOf(withHeader("{\"w\": 1", 0)), Catch::Contains("the header is not JSON"));
  CHECK_THAT(errorOf(withHeader("[1]", 0)), Catch::Contains("not a JSON object"));
  CHECK_THAT(errorOf(withHeader(
                 "{\"w\": {\"dtype\": \"Q4\", \"shape\": [1], \"data_offsets\": [0, 1]}}", 1)),
             Catch::Contains("tensor 'w': unknown dtype 'Q4'"));
  CHECK_THAT(errorOf(withHeader(
                 "{\"w\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 0]}}", 0)),
             Catch::Contains("tensor 'w': a dimension is not a size"));
  CHECK_THAT(errorOf(withHeader("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
                                " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [4, 12]}}",
                                12)),
             Catch::Contains("two tensors' data_offsets overlap"));
  CHECK_THAT(errorOf(withHeader("{\"__metadata__\": {\"step\": 7}}", 0)),
             Catch::Contains("metadata 'step' is not a string"));
  std::string error;
  CHECK_FALSE(safetensors::read("/nonexistent/ckpt.safetensors", error));
  CHECK_THAT(error, Catch::StartsWith("/nonexistent/ckpt.safetensors: "));
}

TEST_CASE("an atomic write replaces the file whole, or leaves it", "[checkpoint][safetensors]") {
  std::string dir = temporaryDirectory();
  std::string path = dir + "/ckpt.safetensors";
  REQUIRE_FALSE(safetensors::writeAtomically(path, sample()));
  std::string error;
  auto read = safetensors::read(path, error);
  REQUIRE(read);
  CHECK(read->metadata.at("step") == "7");
  // A second write replaces it; no temporary stays behind.
  safetensors::File next = sample();
  next.metadata["step"] = "8";
  REQUIRE_FALSE(safetensors::writeAtomically(path, next));
  CHECK(safetensors::read(path, error)->metadata.at("step") == "8");
  CHECK(::access((path + ".tmp").c_str(), F_OK) != 0);
  // A write that cannot happen (its temporary file's directory is gone)
  // says why and leaves nothing.
  auto failed = safetensors::writeAtomically(dir + "/missing/ckpt.safetensors", next);
  REQUIRE(failed);
  CHECK_THAT(*failed, Catch::Contains("missing/ckpt.safetensors.tmp"));
  std::remove(path.c_str());
  ::rmdir(dir.c_str());
}
