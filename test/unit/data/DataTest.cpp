// data/: llm.c shards and raw .bin files read back what was written, every
// malformed file is refused with what is wrong, batches are a function of
// (seed, step) with targets one token ahead, and the validation split is
// the tail.
#include "data/Batches.h"
#include "data/TokenFile.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace cotangent::data;

namespace {

std::string temp(const std::string &name) {
  return (std::filesystem::temp_directory_path() / ("cotangent-data-" + name)).string();
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string refusal(const std::string &bytes) {
  std::string path = temp("bad.bin"), error;
  writeBytes(path, bytes);
  CHECK_FALSE(TokenFile::open(path, error));
  std::filesystem::remove(path);
  return error;
}

} // namespace

TEST_CASE("text becomes an llm.c shard that maps back token for token", "[data]") {
  std::vector<uint16_t> tokens = byteTokens("héllo, wörld\n");
  CHECK(tokens.size() == 15); // é and ö are two bytes each
  CHECK(tokens[0] == 'h');
  CHECK(tokens[1] == 0xc3);
  std::string path = temp("text.bin");
  REQUIRE_FALSE(writeShard(path, tokens));
  CHECK(std::filesystem::file_size(path) == kShardHeaderBytes + 2 * tokens.size());
  CHECK_FALSE(std::filesystem::exists(path + ".partial"));
  std::string error;
  auto file = TokenFile::open(path, error);
  REQUIRE(file);
  CHECK(file->format() == TokenFormat::LlmcShard);
  CHECK(std::vector<uint16_t>(file->tokens().begin(), file->tokens().end()) == tokens);
  std::filesystem::remove(path);
}

TEST_CASE("a raw .bin of uint16 tokens (nanoGPT's) maps as it is", "[data]") {
  std::vector<uint16_t> tokens = {50256, 1, 2, 3, 65535};
  std::string path = temp("raw.bin");
  writeBytes(path, std::string(reinterpret_cast<const char *>(tokens.data()), 2 * tokens.size()));
  std::string error;
  auto file = TokenFile::open(path, error);
  REQUIRE(file);
  CHECK(file->format() == TokenFormat::RawUint16);
  CHECK(std::vector<uint16_t>(file->tokens().begin(), file->tokens().end()) == tokens);
  std::filesystem::remove(path);
}

TEST_CASE("malformed token files are refused with what is wrong", "[data][errors]") {
  std::string shard = shardBytes(std::vector<uint16_t>{1, 2, 3});
  CHECK_THAT(refusal(shard.substr(0, 100)), Catch::Contains("an llm.c shard header is 1024 bytes, the file has 100"));
  std::string version = shard;
  version[4] = 7;
  CHECK_THAT(refusal(version), Catch::Contains("llm.c shard version 7, expected 1"));
  CHECK_THAT(refusal(shard + "xx"), Catch::Contains("the llm.c header says 3 tokens, the file holds 8 bytes after it"));
  CHECK_THAT(refusal(shard.substr(0, shard.size() - 1)), Catch::Contains("the llm.c header says 3 tokens"));
  CHECK_THAT(refusal(shardBytes({})), Catch::Contains("no tokens"));
  CHECK_THAT(refusal("abc"), Catch::Contains("a raw .bin of uint16 tokens has an even size, this one 3 bytes"));
  CHECK_THAT(refusal(""), Catch::Contains("no tokens"));
  std::string error;
  CHECK_FALSE(TokenFile::open("/nonexistent/shard.bin", error));
  CHECK_THAT(error, Catch::Contains("/nonexistent/shard.bin: No such file"));
  CHECK_FALSE(TokenFile::open(std::filesystem::temp_directory_path().string(), error));
  CHECK_THAT(error, Catch::Contains("not a regular file"));
  // A shard that cannot be written is an error, and nothing is left behind.
  CHECK(writeShard("/nonexistent/dir/out.bin", std::vector<uint16_t>{1}));
}

TEST_CASE("batches are a function of seed and step, targets one token ahead", "[data]") {
  std::vector<uint16_t> tokens(1000);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<uint16_t>(i);
  std::string error;
  auto sampler = BatchSampler::make(tokens, 4, 16, 42, error);
  REQUIRE(sampler);
  Batch b = sampler->at(7);
  CHECK(b.inputs.size() == 64);
  for (int64_t r = 0; r < 4; ++r) {
    uint64_t s = sampler->start(7, r);
    CHECK(s + 16 < tokens.size());
    for (int64_t t = 0; t < 16; ++t) {
      CHECK(b.inputs[static_cast<size_t>(r * 16 + t)] == static_cast<int32_t>(s + t));
      CHECK(b.targets[static_cast<size_t>(r * 16 + t)] == static_cast<int32_t>(s + t + 1));
    }
  }
  // Resumable: another sampler with the seed gives the step's batch again.
  auto again = BatchSampler::make(tokens, 4, 16, 42, error);
  CHECK(again->at(7).inputs == b.inputs);
  CHECK(sampler->at(8).inputs != b.inputs);
  CHECK(BatchSampler::make(tokens, 4, 16, 43, error)->at(7).inputs != b.inputs);
  // Every start is drawn, over many steps (uniform over the windows).
  std::vector<int> seen(tokens.size() - 16);
  for (uint64_t step = 0; step < 20000; ++step)
    ++seen[sampler->start(step, 0)];
  CHECK(std::count(seen.begin(), seen.end(), 0) == 0); // 20 draws a window: e^-20 to miss one

  CHECK_FALSE(BatchSampler::make(std::span<const uint16_t>(tokens).first(16), 1, 16, 0, error));
  CHECK_THAT(error, Catch::Contains("a window of seq + 1 = 17 tokens needs more than the 16 there are"));
  CHECK_FALSE(BatchSampler::make(tokens, 0, 16, 0, error));
  CHECK_THAT(error, Catch::Contains("batch and seq must be positive"));
}

TEST_CASE("the validation split is the tail, at least one window", "[data]") {
  std::vector<uint16_t> tokens(1000, 1);
  auto [train, val] = splitTokens(tokens, 0.1, 16);
  CHECK(train.size() == 900);
  CHECK(val.size() == 100);
  CHECK(val.data() == tokens.data() + 900);
  auto [train2, val2] = splitTokens(tokens, 0.001, 16);
  CHECK(val2.size() == 17);
  CHECK(train2.size() == 983);
  auto [all, none] = splitTokens(tokens, 0, 16);
  CHECK(all.size() == 1000);
  CHECK(none.empty());
}
