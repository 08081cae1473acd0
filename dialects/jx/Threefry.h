//===- Threefry.h - the threefry2x32 block cipher ----------------*- C++ -*-===//
//
// What jx.threefry2x32 computes, defined once for everything that computes
// it: the interpreter, the host PRNG (tracer/Random.cpp) and the CPU/GPU
// lowering (which emits the same rounds as arith ops from these constants).
// Threefry-2x32 with 20 rounds (Salmon et al., SC'11), as JAX's
// threefry2x32_p.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_THREEFRY_H
#define COTANGENT_DIALECTS_JX_THREEFRY_H

#include <cstdint>
#include <utility>

namespace mlir::jx::threefry {

/// The rotation distances, alternating by group of four rounds.
inline constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
/// The key schedule's parity constant.
inline constexpr uint32_t kParity = 0x1BD11BDAu;
/// Groups of four rounds (20 rounds).
inline constexpr int kGroups = 5;

inline uint32_t rotl(uint32_t v, int d) { return (v << d) | (v >> (32 - d)); }

/// The two words (x0, x1) enciphered under the key (k0, k1).
inline std::pair<uint32_t, uint32_t> encipher(uint32_t k0, uint32_t k1, uint32_t x0, uint32_t x1) {
  uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ kParity};
  x0 += ks[0];
  x1 += ks[1];
  for (int group = 0; group < kGroups; ++group) {
    for (int r : kRotations[group % 2]) {
      x0 += x1;
      x1 = rotl(x1, r) ^ x0;
    }
    // Key injection after every four rounds.
    x0 += ks[(group + 1) % 3];
    x1 += ks[(group + 2) % 3] + static_cast<uint32_t>(group + 1);
  }
  return {x0, x1};
}

} // namespace mlir::jx::threefry

#endif // COTANGENT_DIALECTS_JX_THREEFRY_H
