// The f32 batched matmuls on oneDNN (runtime/cpu/OneDnnMatmul.h): loaded on
// libomp's threads, equal to a double-precision product within f32 rounding
// for every layout jx-matmul-to-blas passes, and left to OpenBLAS where they
// should be; bf16 and f16 operands into f32 products (oneDNN's bf16 kernels
// where the CPU runs them, else widened onto the f32 path) within the same
// bound of the exact product of the rounded operands.
#include "runtime/cpu/MatmulChoice.h"
#include "runtime/cpu/MemoryHooks.h"
#include "runtime/cpu/OneDnnMatmul.h"
#include "runtime/interpreter/ErrorBound.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <bit>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <cmath>
#include <cstring>
#include <filesystem>
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

/// `v` rounded to bf16 (nearest, ties to even), and the value it stands for.
uint16_t toBf16(float v) {
  uint32_t bits = std::bit_cast<uint32_t>(v);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
float fromBf16(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

/// `v` (|v| <= 1) as an IEEE half, rounded toward zero, and the value it
/// stands for (normal halves only: the test data stays above 2^-14 or is 0).
uint16_t toF16(float v) {
  if (std::abs(v) < 0x1p-14f)
    return 0;
  uint32_t bits = std::bit_cast<uint32_t>(v);
  uint32_t sign = (bits >> 16) & 0x8000u, exponent = ((bits >> 23) & 0xffu) - 112,
           mantissa = (bits >> 13) & 0x3ffu;
  return static_cast<uint16_t>(sign | (exponent << 10) | mantissa);
}
float fromF16(uint16_t h) {
  float v = std::ldexp(1.0f + static_cast<float>(h & 0x3ffu) / 1024.0f,
                       static_cast<int>((h >> 10) & 0x1fu) - 15);
  return h == 0 ? 0.0f : (h & 0x8000u) ? -v : v;
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

TEST_CASE("bf16 and f16 operands into f32 products equal the exact products of the rounded "
          "operands within f32 rounding, on oneDNN or widened",
          "[cpu][onednn][numerics]") {
  // A weight gradient's layout (A transposed), batched, B broadcast.
  const int64_t batch = 2, m = 64, n = 72, k = 96;
  std::vector<float> a32 = random(batch * k * m, 6), b32 = random(k * n, 7);
  auto check = [&](uint16_t (*narrow)(float), float (*widen)(uint16_t),
                   void (*entry)(CotangentMemRef3 *, CotangentMemRef3 *, CotangentMemRef3 *),
                   bool bf16) {
    std::vector<uint16_t> a16(a32.size()), b16(b32.size());
    std::vector<float> aw(a32.size()), bw(b32.size());
    for (size_t i = 0; i < a32.size(); ++i)
      aw[i] = widen(a16[i] = narrow(a32[i]));
    for (size_t i = 0; i < b32.size(); ++i)
      bw[i] = widen(b16[i] = narrow(b32[i]));
    std::array<int64_t, 3> aStrides{k * m, 1, m}, bStrides{0, n, 1}, cStrides{m * n, n, 1};
    CotangentMemRef3 a{a16.data(), a16.data(), 0, {batch, m, k}, {aStrides[0], aStrides[1], aStrides[2]}};
    CotangentMemRef3 b{b16.data(), b16.data(), 0, {batch, k, n}, {bStrides[0], bStrides[1], bStrides[2]}};
    // The exact reference reads the rounded operands as f32.
    auto aRef = view(aw, {batch, m, k}, aStrides), bRef = view(bw, {batch, k, n}, bStrides);
    for (cpu::MatmulLibrary library : {cpu::MatmulLibrary::OneDnn, cpu::MatmulLibrary::OpenBlas}) {
      cpu::setMatmulLibrary(library);
      std::vector<float> cv(batch * m * n, NAN);
      auto c = view(cv, {batch, m, n}, cStrides);
      entry(&a, &b, &c);
      INFO((library == cpu::MatmulLibrary::OneDnn ? "oneDNN chosen" : "OpenBLAS chosen")
           << ", bf16: " << bf16 << ", " << cpu::matmulLibraryName());
      CHECK(worstError(aRef, bRef, c) <= interp::gamma(k, 0x1p-24));
      // oneDNN takes bf16 only where it has kernels for it, never when not chosen.
      if (bf16 && library == cpu::MatmulLibrary::OpenBlas)
        CHECK_FALSE(cpu::oneDnnBatchMatmulBf16(a, b, c));
    }
    cpu::setMatmulLibrary(cpu::MatmulLibrary::Measured);
  };
  SECTION("bf16") { check(toBf16, fromBf16, _mlir_ciface_cotangent_batch_matmul_bf16, true); }
  SECTION("f16") { check(toF16, fromF16, _mlir_ciface_cotangent_batch_matmul_f16, false); }
}

TEST_CASE("the faster library is measured once per machine kind and read back from its file",
          "[cpu][onednn][matmul-choice]") {
  const std::string original = cpu::matmulCachePath();
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("cotangent-matmul-choice-" + std::to_string(getpid()) + ".txt"))
                               .string();
  std::remove(file.c_str());
  cpu::setMatmulCachePath(file);
  cpu::setMatmulLibrary(cpu::MatmulLibrary::Measured);
  const int64_t n = 128; // 2^21 multiply-adds: oneDNN may take it
  std::vector<float> av = random(n * n, 11), bv = random(n * n, 12);
  auto a = view(av, {1, n, n}, {n * n, n, 1}), b = view(bv, {1, n, n}, {n * n, n, 1});
  auto product = [&](cpu::MatmulLibrary library) {
    cpu::setMatmulLibrary(library);
    std::vector<float> cv(n * n, NAN);
    auto c = view(cv, {1, n, n}, {n * n, n, 1});
    _mlir_ciface_cotangent_batch_matmul_f32(&a, &b, &c);
    CHECK(worstError(a, b, c) <= interp::gamma(n, 0x1p-24));
    cpu::setMatmulLibrary(cpu::MatmulLibrary::Measured);
    return cv;
  };
  auto readFile = [&] {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };

  // Measured at the first product, kept for the process, written with the
  // machine kind and both libraries' calibration times.
  std::vector<float> first = product(cpu::MatmulLibrary::Measured);
  CHECK(cpu::matmulChoiceCounts().measured == 1);
  product(cpu::MatmulLibrary::Measured);
  CHECK(cpu::matmulChoiceCounts().measured == 1);
  std::string written = readFile();
  INFO(written);
  REQUIRE(written.rfind("# " + cpu::matmulMachineKind() + "\n", 0) == 0);
  std::string line = written.substr(written.find('\n') + 1);
  bool oneDnnChosen = line.rfind("onednn ", 0) == 0;
  CHECK((oneDnnChosen || line.rfind("openblas ", 0) == 0));
  int64_t oneDnnUs = 0, openBlasUs = 0;
  std::istringstream(line.substr(line.find(' '))) >> oneDnnUs >> openBlasUs;
  CHECK(oneDnnUs > 0);
  CHECK(openBlasUs > 0);
  // The rule, where the file's whole microseconds cannot have rounded across it.
  if (std::abs(openBlasUs - cpu::kOpenBlasShare * oneDnnUs) > 2)
    CHECK(oneDnnChosen == (openBlasUs > cpu::kOpenBlasShare * oneDnnUs));

  // A new process (the answer forgotten) reads it instead of measuring.
  cpu::setMatmulCachePath(file);
  std::vector<float> again = product(cpu::MatmulLibrary::Measured);
  CHECK(cpu::matmulChoiceCounts().fromFile == 1);
  CHECK(cpu::matmulChoiceCounts().measured == 0);
  CHECK(again == first); // the same library, so the same bits

  // The file decides: rewritten to name each library, the product is that
  // library's to the bit.
  std::vector<float> byOneDnn = product(cpu::MatmulLibrary::OneDnn);
  std::vector<float> byOpenBlas = product(cpu::MatmulLibrary::OpenBlas);
  CHECK(first == (oneDnnChosen ? byOneDnn : byOpenBlas));
  for (const char *library : {"onednn", "openblas"}) {
    std::ofstream(file) << "# " << cpu::matmulMachineKind() << "\n" << library << " 1 1\n";
    cpu::setMatmulCachePath(file);
    INFO("the file names " << library);
    CHECK(product(cpu::MatmulLibrary::Measured) ==
          (std::string(library) == "onednn" ? byOneDnn : byOpenBlas));
    CHECK(cpu::matmulChoiceCounts().fromFile == 1);
  }

  // Another machine kind's file is not read: measured again.
  std::ofstream(file) << "# another machine\n" << line;
  cpu::setMatmulCachePath(file);
  product(cpu::MatmulLibrary::Measured);
  CHECK(cpu::matmulChoiceCounts().measured == 1);
  CHECK(cpu::matmulChoiceCounts().fromFile == 0);

  // Without a file, each process measures for itself.
  cpu::setMatmulCachePath("");
  product(cpu::MatmulLibrary::Measured);
  CHECK(cpu::matmulChoiceCounts().measured == 1);
  std::remove(file.c_str());
  cpu::setMatmulCachePath(original);
}
