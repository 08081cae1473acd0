// The fused attention kernels (runtime/cpu/Attention.h) against a
// double-precision reference that materializes the softmax, over partial
// tiles, odd head sizes, causal masks, strided views, and thread counts; and
// cpu::parallelFor, which they run on.
#include "runtime/cpu/Attention.h"
#include "runtime/cpu/Threads.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

using namespace cotangent;

namespace {

/// Sets the thread count for a scope.
class ThreadsGuard {
public:
  explicit ThreadsGuard(unsigned n) : saved(cpu::threads()) { cpu::setThreads(n); }
  ~ThreadsGuard() { cpu::setThreads(saved); }

private:
  unsigned saved;
};

/// A [B, T, N, H] (or lse's [B, N, T]) f32 view into a buffer of its own,
/// laid out as `order` says (dimensions outermost first) with `pad` unused
/// floats after each dimension's extent and `front` before the first
/// element; unused floats hold a sentinel that the kernels must leave alone.
struct View {
  static constexpr float kSentinel = 1234.5f;
  std::vector<float> storage;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;

  View(std::vector<int64_t> dims, std::vector<int> order, int64_t pad = 0, int64_t front = 0)
      : sizes(std::move(dims)), strides(sizes.size()), offset(front) {
    int64_t step = 1;
    for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
      strides[order[i]] = step;
      step *= sizes[order[i]] + pad;
    }
    storage.assign(static_cast<size_t>(front + step), kSentinel);
  }
  /// A rank-4 view with its own offset and strides into a copy of
  /// `parent`'s buffer: q, k, v as slices of one projection's output.
  View(const View &parent, int64_t offsetIn, std::vector<int64_t> dims,
       std::vector<int64_t> stridesIn)
      : sizes(std::move(dims)), strides(std::move(stridesIn)), offset(offsetIn) {
    storage = parent.storage;
  }

  int64_t index(std::initializer_list<int64_t> at) const {
    int64_t i = offset, d = 0;
    for (int64_t x : at)
      i += x * strides[d++];
    return i;
  }
  float &operator()(int64_t a, int64_t b, int64_t c, int64_t d) {
    return storage[index({a, b, c, d})];
  }
  float operator()(int64_t a, int64_t b, int64_t c, int64_t d) const {
    return storage[index({a, b, c, d})];
  }

  CotangentMemRef4 memref4() {
    CotangentMemRef4 m{storage.data(), storage.data(), offset, {}, {}};
    for (int i = 0; i < 4; ++i)
      m.sizes[i] = sizes[i], m.strides[i] = strides[i];
    return m;
  }
  CotangentMemRef3 memref3() {
    CotangentMemRef3 m{storage.data(), storage.data(), offset, {}, {}};
    for (int i = 0; i < 3; ++i)
      m.sizes[i] = sizes[i], m.strides[i] = strides[i];
    return m;
  }

  /// Every element, in index order.
  template <typename F> void forEach(F f) const {
    for (int64_t a = 0; a < sizes[0]; ++a)
      for (int64_t b = 0; b < sizes[1]; ++b)
        for (int64_t c = 0; c < sizes[2]; ++c) {
          if (sizes.size() == 3) {
            f(index({a, b, c}));
            continue;
          }
          for (int64_t d = 0; d < sizes[3]; ++d)
            f(index({a, b, c, d}));
        }
  }
  /// True when no float outside the view changed from the sentinel.
  bool paddingIntact() const {
    std::vector<char> inView(storage.size(), 0);
    forEach([&](int64_t i) { inView[i] = 1; });
    for (size_t i = 0; i < storage.size(); ++i)
      if (!inView[i] && storage[i] != kSentinel)
        return false;
    return true;
  }
};

/// How the test lays out its tensors.
enum class Layout {
  Contiguous, // BTNH, dense
  Strided,    // padded, offset, or permuted (h not innermost); with Tq == Tk, q, k, v
              // are views of one [B, T, 3, N, H] buffer
};

struct Case {
  int64_t batch, heads, queries, keys, dim;
  bool causal;
  Layout layout = Layout::Contiguous;
};

/// The tensors of one case: inputs filled, outputs holding NaN (the
/// kernels must overwrite every element).
struct Problem {
  Case c;
  float scale;
  View q, k, v, out, lse, dout, dq, dk, dv;

  static View tensor(const Case &c, int64_t t, Layout layout, int which) {
    std::vector<int64_t> dims{c.batch, t, c.heads, c.dim};
    if (layout == Layout::Contiguous)
      return View(dims, {0, 1, 2, 3});
    switch (which) {
    case 0: return View(dims, {0, 1, 2, 3}, 3, 5);   // padded rows
    case 1: return View(dims, {0, 2, 3, 1}, 0, 2);   // BNHT: h strides by T
    default: return View(dims, {2, 0, 1, 3}, 1, 0);  // NBTH, padded
    }
  }

  explicit Problem(const Case &cs)
      : c(cs), scale(static_cast<float>(1.0 / std::sqrt(static_cast<double>(cs.dim)))),
        q(tensor(cs, cs.queries, cs.layout, 2)), k(tensor(cs, cs.keys, cs.layout, 0)),
        v(tensor(cs, cs.keys, cs.layout, 1)), out(tensor(cs, cs.queries, cs.layout, 0)),
        lse(cs.layout == Layout::Contiguous
                ? View({cs.batch, cs.heads, cs.queries}, {0, 1, 2})
                : View({cs.batch, cs.heads, cs.queries}, {2, 1, 0}, 2, 1)),
        dout(tensor(cs, cs.queries, cs.layout, 1)), dq(tensor(cs, cs.queries, cs.layout, 1)),
        dk(tensor(cs, cs.keys, cs.layout, 2)), dv(tensor(cs, cs.keys, cs.layout, 0)) {
    std::mt19937 rng(static_cast<unsigned>(cs.queries * 131 + cs.keys * 7 + cs.dim));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    if (cs.layout == Layout::Strided && cs.queries == cs.keys) {
      // q, k, v as one projection's output: [B, T, 3, N, H], sliced.
      View qkv({cs.batch, cs.queries, 3, cs.heads, cs.dim}, {0, 1, 2, 3, 4});
      for (float &x : qkv.storage)
        x = uniform(rng);
      const int64_t s3 = cs.heads * cs.dim;
      std::vector<int64_t> strides{cs.queries * 3 * s3, 3 * s3, cs.dim, 1};
      std::vector<int64_t> dims{cs.batch, cs.queries, cs.heads, cs.dim};
      q = View(qkv, 0, dims, strides);
      k = View(qkv, s3, dims, strides);
      v = View(qkv, 2 * s3, dims, strides);
    } else {
      for (View *x : {&q, &k, &v})
        x->forEach([&](int64_t i) { x->storage[i] = uniform(rng); });
    }
    // Larger scores, so that the softmax is far from uniform.
    q.forEach([&](int64_t i) { q.storage[i] *= 3.0f; });
    dout.forEach([&](int64_t i) { dout.storage[i] = uniform(rng); });
    for (View *x : {&out, &lse, &dq, &dk, &dv})
      x->forEach([&](int64_t i) { x->storage[i] = std::nanf(""); });
  }

  void forward() {
    CotangentMemRef4 mq = q.memref4(), mk = k.memref4(), mv = v.memref4(), mo = out.memref4();
    CotangentMemRef3 ml = lse.memref3();
    _mlir_ciface_cotangent_attention_fwd_f32(&mq, &mk, &mv, &mo, &ml, c.causal, scale);
  }
  void backward() {
    CotangentMemRef4 mq = q.memref4(), mk = k.memref4(), mv = v.memref4(), mo = out.memref4(),
                     mdo = dout.memref4(), mdq = dq.memref4(), mdk = dk.memref4(),
                     mdv = dv.memref4();
    CotangentMemRef3 ml = lse.memref3();
    _mlir_ciface_cotangent_attention_bwd_f32(&mq, &mk, &mv, &mo, &ml, &mdo, &mdq, &mdk, &mdv,
                                             c.causal, scale);
  }
};

/// What the kernels should compute, in double, with the softmax materialized.
struct Reference {
  // [b][n] blocks of [T][H] / [T].
  std::vector<double> out, lse, dq, dk, dv;
};

Reference reference(const Problem &p) {
  const Case &c = p.c;
  const int64_t B = c.batch, N = c.heads, Tq = c.queries, Tk = c.keys, H = c.dim;
  Reference r;
  r.out.assign(B * N * Tq * H, 0);
  r.lse.assign(B * N * Tq, 0);
  r.dq.assign(B * N * Tq * H, 0);
  r.dk.assign(B * N * Tk * H, 0);
  r.dv.assign(B * N * Tk * H, 0);
  std::vector<double> prob(Tq * Tk), dprob(Tq * Tk);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n) {
      const int64_t bn = b * N + n;
      for (int64_t i = 0; i < Tq; ++i) {
        double max = -INFINITY;
        for (int64_t j = 0; j < Tk; ++j) {
          double s = 0;
          for (int64_t h = 0; h < H; ++h)
            s += double(p.q(b, i, n, h)) * p.k(b, j, n, h);
          s *= p.scale;
          if (c.causal && j > i)
            s = -INFINITY;
          prob[i * Tk + j] = s;
          max = std::max(max, s);
        }
        double sum = 0;
        for (int64_t j = 0; j < Tk; ++j)
          sum += prob[i * Tk + j] = std::exp(prob[i * Tk + j] - max);
        r.lse[bn * Tq + i] = max + std::log(sum);
        for (int64_t j = 0; j < Tk; ++j)
          prob[i * Tk + j] /= sum;
        for (int64_t h = 0; h < H; ++h) {
          double o = 0;
          for (int64_t j = 0; j < Tk; ++j)
            o += prob[i * Tk + j] * p.v(b, j, n, h);
          r.out[(bn * Tq + i) * H + h] = o;
        }
        // dP, and dS = P (dP - sum_j P dP).
        double delta = 0;
        for (int64_t j = 0; j < Tk; ++j) {
          double dp = 0;
          for (int64_t h = 0; h < H; ++h)
            dp += double(p.dout(b, i, n, h)) * p.v(b, j, n, h);
          dprob[i * Tk + j] = dp;
          delta += prob[i * Tk + j] * dp;
        }
        for (int64_t j = 0; j < Tk; ++j)
          dprob[i * Tk + j] = prob[i * Tk + j] * (dprob[i * Tk + j] - delta);
      }
      for (int64_t i = 0; i < Tq; ++i)
        for (int64_t j = 0; j < Tk; ++j)
          for (int64_t h = 0; h < H; ++h) {
            const double ds = dprob[i * Tk + j] * p.scale;
            r.dq[(bn * Tq + i) * H + h] += ds * p.k(b, j, n, h);
            r.dk[(bn * Tk + j) * H + h] += ds * p.q(b, i, n, h);
            r.dv[(bn * Tk + j) * H + h] += prob[i * Tk + j] * p.dout(b, i, n, h);
          }
    }
  return r;
}

/// max |got - want| / max |want| over a [B, T, N, H] view (rank 3 for lse),
/// `want` in [b][n][t][h] order.
double relativeError(const View &got, const std::vector<double> &want) {
  const bool rank3 = got.sizes.size() == 3;
  const int64_t B = got.sizes[0], T = rank3 ? got.sizes[2] : got.sizes[1],
                N = rank3 ? got.sizes[1] : got.sizes[2], H = rank3 ? 1 : got.sizes[3];
  double maxError = 0, maxValue = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t h = 0; h < H; ++h) {
          const double w = want[((b * N + n) * T + t) * H + h];
          const double g = rank3 ? got.storage[got.index({b, n, t})]
                                 : got.storage[got.index({b, t, n, h})];
          maxError = std::max(maxError, std::isfinite(g) ? std::abs(g - w) : INFINITY);
          maxValue = std::max(maxValue, std::abs(w));
        }
  // All zero (one key: the scores have no gradient): the absolute error.
  return maxError / (maxValue > 0 ? maxValue : 1.0);
}

std::string describe(const Case &c, unsigned threads) {
  return "B=" + std::to_string(c.batch) + " N=" + std::to_string(c.heads) +
         " Tq=" + std::to_string(c.queries) + " Tk=" + std::to_string(c.keys) +
         " H=" + std::to_string(c.dim) + (c.causal ? " causal" : "") +
         (c.layout == Layout::Strided ? " strided" : "") + " threads=" + std::to_string(threads);
}

} // namespace

TEST_CASE("fused attention matches a double-precision reference, forward and backward",
          "[cpu][attention]") {
  const std::vector<Case> cases = {
      {2, 3, 70, 70, 16, false},                   // partial tiles
      {2, 3, 70, 70, 16, true},
      {1, 2, 33, 130, 16, false},                  // Tq != Tk
      {1, 2, 33, 130, 16, true},                   // keys past every query: no gradient
      {1, 2, 130, 33, 8, true},
      {2, 2, 70, 45, 5, false},                    // H not a multiple of the vector width
      {2, 2, 70, 70, 5, true},
      {1, 2, 256, 256, 64, true},                  // whole tiles, GPT-2's head size
      {1, 1, 1, 1, 3, false},
      {2, 3, 70, 70, 16, true, Layout::Strided},   // views of one qkv projection
      {1, 2, 33, 130, 24, false, Layout::Strided}, // h not innermost in v, dq, dout
  };
  for (const Case &c : cases)
    for (unsigned threads : {1u, 2u}) {
      INFO(describe(c, threads));
      ThreadsGuard guard(threads);
      Problem p(c);
      p.forward();
      p.backward();
      const Reference want = reference(p);
      CHECK(relativeError(p.out, want.out) <= 1e-5);
      CHECK(relativeError(p.lse, want.lse) <= 1e-5);
      CHECK(relativeError(p.dq, want.dq) <= 1e-5);
      CHECK(relativeError(p.dk, want.dk) <= 1e-5);
      CHECK(relativeError(p.dv, want.dv) <= 1e-5);
      for (const View *x : {&p.out, &p.lse, &p.dq, &p.dk, &p.dv})
        CHECK(x->paddingIntact());
    }
}

TEST_CASE("fused attention gives the same bits on any number of threads", "[cpu][attention]") {
  for (const Case &c : {Case{2, 3, 200, 200, 32, true}, Case{1, 3, 70, 130, 5, false}}) {
    INFO(describe(c, 0));
    std::vector<std::vector<float>> runs;
    for (unsigned threads : {1u, 2u, 3u}) {
      ThreadsGuard guard(threads);
      Problem p(c);
      p.forward();
      p.backward();
      std::vector<float> all;
      for (const View *x : {&p.out, &p.lse, &p.dq, &p.dk, &p.dv})
        all.insert(all.end(), x->storage.begin(), x->storage.end());
      runs.push_back(std::move(all));
    }
    for (size_t i = 1; i < runs.size(); ++i) {
      REQUIRE(runs[i].size() == runs[0].size());
      CHECK(std::memcmp(runs[i].data(), runs[0].data(), runs[0].size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("parallelFor covers every index once, in contiguous non-empty chunks",
          "[cpu][threads]") {
  for (unsigned threads : {1u, 2u, 3u, 5u})
    for (int64_t n : {0, 1, 2, 3, 7, 100}) {
      INFO("threads=" << threads << " n=" << n);
      ThreadsGuard guard(threads);
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      std::mutex mutex;
      std::vector<std::pair<int64_t, int64_t>> chunks;
      cpu::parallelFor(n, [&](int64_t begin, int64_t end) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          chunks.emplace_back(begin, end);
        }
        for (int64_t i = begin; i < end; ++i)
          hits[i].fetch_add(1);
      });
      for (int64_t i = 0; i < n; ++i)
        CHECK(hits[i].load() == 1);
      CHECK(chunks.size() <= std::min<size_t>(threads, static_cast<size_t>(n)));
      for (auto [begin, end] : chunks)
        CHECK(begin < end);
    }
}

TEST_CASE("parallelFor inside another parallelFor runs the inner loop whole",
          "[cpu][threads]") {
  ThreadsGuard guard(2);
  std::vector<std::atomic<int>> hits(4 * 10);
  cpu::parallelFor(4, [&](int64_t begin, int64_t end) {
    for (int64_t outer = begin; outer < end; ++outer)
      cpu::parallelFor(10, [&](int64_t b, int64_t e) {
        for (int64_t inner = b; inner < e; ++inner)
          hits[outer * 10 + inner].fetch_add(1);
      });
  });
  for (auto &h : hits)
    CHECK(h.load() == 1);
}
