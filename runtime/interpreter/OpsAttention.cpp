//===- OpsAttention.cpp - reference semantics of fused attention ----------===//
//
// dot_product_attention and its backward by definition: the whole score
// matrix of a (batch, head) materialized, every sum in double, each result
// rounded once to its storage type. The compiled kernels' tiles and online
// softmax are checked against this.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxAttentionOps.h"
#include "runtime/interpreter/Ops.h"

#include <cmath>
#include <limits>

using namespace cotangent;
using namespace cotangent::interp;

namespace {

/// Element (b, t, n, h) of a [B, T, N, H] tensor, and (b, n, t) of [B, N, T].
struct Bthn {
  int64_t T, N, H;
  int64_t at(int64_t b, int64_t t, int64_t n, int64_t h) const {
    return ((b * T + t) * N + n) * H + h;
  }
};

struct Problem {
  int64_t B, T, S, N, H;
  Bthn q, k;
  Problem(const Tensor &query, const Tensor &key)
      : B(query.getShape()[0]), T(query.getShape()[1]), S(key.getShape()[1]),
        N(query.getShape()[2]), H(query.getShape()[3]), q{T, N, H}, k{S, N, H} {}
  int64_t lseAt(int64_t b, int64_t n, int64_t t) const { return (b * N + n) * T + t; }
  bool sees(int64_t i, int64_t j, bool causal) const { return !causal || j <= i; }
};

/// The scaled scores of one (b, n): s[i * S + j], -inf where masked.
std::vector<double> scores(const Problem &p, const Tensor &query, const Tensor &key, int64_t b,
                           int64_t n, double scale, bool causal) {
  std::vector<double> s(p.T * p.S, -std::numeric_limits<double>::infinity());
  for (int64_t i = 0; i < p.T; ++i)
    for (int64_t j = 0; j < p.S; ++j) {
      if (!p.sees(i, j, causal))
        continue;
      double dot = 0;
      for (int64_t h = 0; h < p.H; ++h)
        dot += query.getDouble(p.q.at(b, i, n, h)) * key.getDouble(p.k.at(b, j, n, h));
      s[i * p.S + j] = scale * dot;
    }
  return s;
}

} // namespace

std::vector<Tensor> interp::dotProductAttentionOp(const Tensor &query, const Tensor &key,
                                                  const Tensor &value, double scale, bool causal) {
  Problem p(query, key);
  Tensor out(query.getType());
  Tensor lse(mlir::jx::attentionLogsumexpType(query.getType()));
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t n = 0; n < p.N; ++n) {
      std::vector<double> s = scores(p, query, key, b, n, scale, causal);
      for (int64_t i = 0; i < p.T; ++i) {
        double *row = &s[i * p.S];
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < p.S; ++j)
          max = std::max(max, row[j]);
        double sum = 0;
        for (int64_t j = 0; j < p.S; ++j)
          sum += row[j] = std::exp(row[j] - max);
        for (int64_t h = 0; h < p.H; ++h) {
          double acc = 0;
          for (int64_t j = 0; j < p.S; ++j)
            acc += row[j] * value.getDouble(p.k.at(b, j, n, h));
          out.setDouble(p.q.at(b, i, n, h), acc / sum);
        }
        lse.setDouble(p.lseAt(b, n, i), max + std::log(sum));
      }
    }
  return {out, lse};
}

std::vector<Tensor> interp::dotProductAttentionGradOp(const Tensor &query, const Tensor &key,
                                                      const Tensor &value, const Tensor &output,
                                                      const Tensor &logsumexp,
                                                      const Tensor &doutput, double scale,
                                                      bool causal) {
  Problem p(query, key);
  std::vector<double> dq(query.getNumElements()), dk(key.getNumElements()),
      dv(value.getNumElements());
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t n = 0; n < p.N; ++n) {
      std::vector<double> s = scores(p, query, key, b, n, scale, causal);
      for (int64_t i = 0; i < p.T; ++i) {
        // D_i = dO_i . O_i, the softmax's correction term.
        double d = 0;
        for (int64_t h = 0; h < p.H; ++h)
          d += doutput.getDouble(p.q.at(b, i, n, h)) * output.getDouble(p.q.at(b, i, n, h));
        double lse = logsumexp.getDouble(p.lseAt(b, n, i));
        for (int64_t j = 0; j < p.S; ++j) {
          if (!p.sees(i, j, causal))
            continue;
          double prob = std::exp(s[i * p.S + j] - lse);
          double dp = 0;
          for (int64_t h = 0; h < p.H; ++h) {
            double g = doutput.getDouble(p.q.at(b, i, n, h));
            dv[p.k.at(b, j, n, h)] += prob * g;
            dp += g * value.getDouble(p.k.at(b, j, n, h));
          }
          double ds = scale * prob * (dp - d);
          for (int64_t h = 0; h < p.H; ++h) {
            dq[p.q.at(b, i, n, h)] += ds * key.getDouble(p.k.at(b, j, n, h));
            dk[p.k.at(b, j, n, h)] += ds * query.getDouble(p.q.at(b, i, n, h));
          }
        }
      }
    }
  return {Tensor::fromDoubles(query.getType(), dq), Tensor::fromDoubles(key.getType(), dk),
          Tensor::fromDoubles(value.getType(), dv)};
}
