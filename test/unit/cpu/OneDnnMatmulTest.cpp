// The f32 batched matmuls on oneDNN (runtime/cpu/OneDnnMatmul.h): loaded on
// libomp's threads, equal to a double-precision product within f32 rounding
// for every layout jx-matmul-to-blas passes, and left to OpenBLAS where they
// should be.
#include "runtime/cpu/MemoryHooks.h"
#include "runtime/cpu/OneDnnMatmul.h"
#include "runtime/interpreter/ErrorBound.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace cotangent;

namespace {

/// A rank-3 strided view of `data`.
CotangentMemRef3 view(std::vector<float> &data, std::array<int64_t, 3> sizes,
                      std::array<int64_t, 3> strides) {
  return {data.data(), data.data(), 0, {sizes[0], sizes[1], sizes[2]},
          {strides[0], strides[1], strides[2]}};
}

float at(const CotangentMemRef3 &m, int64_t b, int64_t i, int64_t j) {
  return static_cast<const float *>(m.aligned)[m.offset + b * m.strides[0] + i * m.strides[1] +
                                               j * m.strides[2]];
}

std::vector<float> random(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

/// The largest |C - A B| over the products, against a double-precision sum,
/// relative to the sum of |a||b|: at most gamma_k for f32 sums of k
/// products in any order and blocking (ErrorBound.h).
double worstError(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                  const CotangentMemRef3 &c) {
  double worst = 0;
  for (int64_t p = 0; p < c.sizes[0]; ++p)
    for (int64_t i = 0; i < c.sizes[1]; ++i)
      for (int64_t j = 0; j < c.sizes[2]; ++j) {
        double exact = 0, scale = 0;
        for (int64_t x = 0; x < a.sizes[2]; ++x) {
          exact += double(at(a, p, i, x)) * at(b, p, x, j);
          scale += std::abs(double(at(a, p, i, x)) * at(b, p, x, j));
        }
        worst = std::max(worst, std::abs(at(c, p, i, j) - exact) / std::max(scale, 1e-30));
      }
  return worst;
}

struct Case {
  const char *name;
  int64_t batch, m, n, k;
  bool aColumnMajor, bColumnMajor, broadcastB;
  int64_t pad; ///< extra elements per leading dimension
};

} // namespace

TEST_CASE("oneDNN runs the f32 matmuls on the loops' libomp threads", "[cpu][onednn]") {
  cpu::setMatmulLibrary(cpu::MatmulLibrary::OneDnn);
  INFO(cpu::matmulLibraryName());
  // scripts/bootstrap.sh installs libdnnl-dev, which brings the library.
  REQUIRE(cpu::matmulLibraryName().rfind("oneDNN ", 0) == 0);
  CHECK(cpu::oneDnnSharesLoopThreads());
}

TEST_CASE("oneDNN's matmuls equal the exact products within f32 rounding in every layout",
          "[cpu][onednn][numerics]") {
  cpu::setMatmulLibrary(cpu::MatmulLibrary::OneDnn);
  const Case cases[] = {
      {"row-major", 1, 96, 80, 64, false, false, false, 0},
      {"A stored transposed (a weight gradient's h^T)", 1, 80, 96, 48, true, false, false, 0},
      {"B stored transposed (h @ W^T)", 1, 64, 72, 96, false, true, false, 0},
      {"batched", 3, 40, 56, 128, false, false, false, 0},
      {"batched, B broadcast over the batch", 4, 48, 64, 96, false, false, true, 0},
      {"leading dimensions wider than the rows", 2, 64, 40, 112, true, true, false, 5},
  };
  for (const Case &t : cases) {
    SECTION(t.name) {
      REQUIRE(t.m * t.n * t.k >= cpu::kMinOneDnnWork);
      int64_t lda = (t.aColumnMajor ? t.m : t.k) + t.pad;
      int64_t ldb = (t.bColumnMajor ? t.k : t.n) + t.pad;
      int64_t aMatrix = lda * (t.aColumnMajor ? t.k : t.m);
      int64_t bMatrix = ldb * (t.bColumnMajor ? t.n : t.k);
      std::vector<float> av = random(t.batch * aMatrix, 1);
      std::vector<float> bv = random((t.broadcastB ? 1 : t.batch) * bMatrix, 2);
      std::vector<float> cv(t.batch * t.m * t.n, NAN), blas(cv.size(), NAN);
      auto a = view(av, {t.batch, t.m, t.k},
                    {aMatrix, t.aColumnMajor ? 1 : lda, t.aColumnMajor ? lda : 1});
      auto b = view(bv, {t.batch, t.k, t.n},
                    {t.broadcastB ? 0 : bMatrix, t.bColumnMajor ? 1 : ldb, t.bColumnMajor ? ldb : 1});
      auto c = view(cv, {t.batch, t.m, t.n}, {t.m * t.n, t.n, 1});
      REQUIRE(cpu::oneDnnBatchMatmulF32(a, b, c));
      CHECK(worstError(a, b, c) <= interp::gamma(t.k, 0x1p-24));

      // The same product on OpenBLAS, through the entry point compiled code calls.
      cpu::setMatmulLibrary(cpu::MatmulLibrary::OpenBlas);
      auto cBlas = view(blas, {t.batch, t.m, t.n}, {t.m * t.n, t.n, 1});
      CHECK_FALSE(cpu::oneDnnBatchMatmulF32(a, b, cBlas));
      _mlir_ciface_cotangent_batch_matmul_f32(&a, &b, &cBlas);
      CHECK(worstError(a, b, cBlas) <= interp::gamma(t.k, 0x1p-24));
      cpu::setMatmulLibrary(cpu::MatmulLibrary::OneDnn);
    }
  }
}

TEST_CASE("small products and layouts BLAS cannot read stay off oneDNN", "[cpu][onednn]") {
  cpu::setMatmulLibrary(cpu::MatmulLibrary::OneDnn);
  std::vector<float> av = random(64 * 64, 3), bv = random(64 * 64, 4), cv(64 * 64);
  // 16 x 16 x 16: under kMinOneDnnWork.
  auto a = view(av, {1, 16, 16}, {256, 16, 1});
  auto b = view(bv, {1, 16, 16}, {256, 16, 1});
  auto c = view(cv, {1, 16, 16}, {256, 16, 1});
  CHECK_FALSE(cpu::oneDnnBatchMatmulF32(a, b, c));
  // 64 x 64 x 64 with a column-major C: no row-major BLAS layout.
  a = view(av, {1, 64, 64}, {4096, 64, 1});
  b = view(bv, {1, 64, 64}, {4096, 64, 1});
  c = view(cv, {1, 64, 64}, {4096, 1, 64});
  CHECK_FALSE(cpu::oneDnnBatchMatmulF32(a, b, c));
  // Elements two apart along both dimensions of A: no layout at all.
  std::vector<float> wide = random(2 * 64 * 128, 5);
  a = view(wide, {1, 64, 64}, {0, 256, 2});
  c = view(cv, {1, 64, 64}, {4096, 64, 1});
  CHECK_FALSE(cpu::oneDnnBatchMatmulF32(a, b, c));
  // The same 64^3 product in plain layouts is taken.
  a = view(av, {1, 64, 64}, {4096, 64, 1});
  CHECK(cpu::oneDnnBatchMatmulF32(a, b, c));
  CHECK(worstError(a, b, c) <= interp::gamma(64, 0x1p-24));
}
