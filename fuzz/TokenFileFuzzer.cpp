//===- TokenFileFuzzer.cpp - fuzz-token-file: the token data reader --------===//
//
// Arbitrary bytes as a token file (data/TokenFile.h). A file is either
// refused with a message, or its tokens are exactly its bytes after the
// header (llm.c's 1024 or none), writing them as a shard and parsing that
// gives them back, and every batch drawn from them is windows of them.
//
//===----------------------------------------------------------------------===//

#include "data/Batches.h"
#include "data/TokenFile.h"
#include "fuzz/FuzzSupport.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  auto fail = [&](const std::string &what) { cotangent::fuzz::violated(what, std::string(bytes)); };
  using namespace cotangent::data;

  ParsedTokens parsed;
  std::optional<std::string> refused = parseTokens(bytes, parsed);
  if (refused) {
    if (refused->empty())
      fail("a refusal says why");
    return 0;
  }
  if (parsed.count == 0 || parsed.offset + 2 * parsed.count != size)
    fail("the tokens are the file's bytes after the header");
  if ((parsed.format == TokenFormat::LlmcShard) != (parsed.offset == kShardHeaderBytes))
    fail("only a shard has a header");
  std::vector<uint16_t> tokens(parsed.count);
  std::memcpy(tokens.data(), data + parsed.offset, 2 * parsed.count);

  std::string shard = shardBytes(tokens);
  ParsedTokens again;
  if (parseTokens(shard, again) || again.count != tokens.size() ||
      std::memcmp(shard.data() + again.offset, tokens.data(), 2 * tokens.size()) != 0)
    fail("the tokens written as a shard read back");

  std::string error;
  int64_t seq = std::min<int64_t>(8, static_cast<int64_t>(tokens.size()) - 1);
  if (seq <= 0)
    return 0;
  auto sampler = BatchSampler::make(tokens, 2, seq, size, error);
  if (!sampler)
    fail("a batch sampler over enough tokens: " + error);
  for (uint64_t step = 0; step < 3; ++step) {
    Batch b = sampler->at(step);
    for (int64_t r = 0; r < 2; ++r) {
      uint64_t s = sampler->start(step, r);
      if (s + static_cast<uint64_t>(seq) >= tokens.size())
        fail("a window ends inside the tokens");
      for (int64_t t = 0; t < seq; ++t)
        if (b.inputs[static_cast<size_t>(r * seq + t)] != tokens[s + static_cast<uint64_t>(t)] ||
            b.targets[static_cast<size_t>(r * seq + t)] != tokens[s + static_cast<uint64_t>(t) + 1])
          fail("a batch row is a window of the tokens, its targets one ahead");
    }
  }
  return 0;
}
