//===- MlpProgram.h - jx IR of an MLP loss under a remat policy -*- C++ -*-===//
//
// Generates the jx text of `@mlp(x, W0, ..., W{L-1}) -> sum(h_L)` with
// h_{i+1} = tanh(h_i @ W_i) (f32, batch x width), where each layer is a
// jx.remat under one policy (or no remat at all), and its dot output is
// named "layer<i>" for the named-value policies. Used by cotangent-bench and
// the CPU runtime's tests.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_MLPPROGRAM_H
#define COTANGENT_BENCH_MLPPROGRAM_H

#include <string>

namespace cotangent::bench {

/// `policy` is the text inside #jx.policy<...>, or empty for no checkpoint;
/// a `$NAMES` placeholder in it becomes the quoted list "layer0", "layer1", ...
/// With `perLayer` each layer is its own jx.remat; otherwise one jx.remat
/// wraps the whole network (jax.checkpoint on the whole function).
/// With `richActivation` a layer is tanh(sin(d) * d) for d = h @ W, whose
/// VJP saves four activations per layer instead of one.
inline std::string mlpProgram(int layers, int width, int batch, const std::string &policy,
                              bool perLayer = true, bool richActivation = false) {
  std::string names;
  for (int i = 0; i < layers; ++i)
    names += (i ? ", \"layer" : "\"layer") + std::to_string(i) + "\"";
  std::string pol = policy;
  if (auto at = pol.find("$NAMES"); at != std::string::npos)
    pol.replace(at, 6, names);

  std::string h = "tensor<" + std::to_string(batch) + "x" + std::to_string(width) + "xf32>";
  std::string w = "tensor<" + std::to_string(width) + "x" + std::to_string(width) + "xf32>";
  std::string s = "func.func @mlp(%x: " + h;
  for (int i = 0; i < layers; ++i)
    s += ", %w" + std::to_string(i) + ": " + w;
  s += ") -> tensor<f32> {\n";
  std::string cur = "%x";
  if (!perLayer && !pol.empty()) {
    // One region over everything: its block arguments shadow x and the weights.
    s += "  %whole = jx.remat (%x";
    for (int i = 0; i < layers; ++i)
      s += ", %w" + std::to_string(i);
    s += ") : (" + h;
    for (int i = 0; i < layers; ++i)
      s += ", " + w;
    s += ") -> " + h + " policy = #jx.policy<" + pol + "> {\n  ^bb0(%rx: " + h;
    for (int i = 0; i < layers; ++i)
      s += ", %rw" + std::to_string(i) + ": " + w;
    s += "):\n";
    std::string inner = mlpProgram(layers, width, batch, "", true, richActivation);
    size_t begin = inner.find('\n') + 1, end = inner.find("  %loss");
    std::string body = inner.substr(begin, end - begin);
    for (size_t at; (at = body.find("%x,")) != std::string::npos;)
      body.replace(at, 3, "%rx,");
    for (int i = layers - 1; i >= 0; --i) {
      for (const char *end : {" ", ","}) {
        std::string from = "%w" + std::to_string(i) + end, to = "%rw" + std::to_string(i) + end;
        for (size_t at; (at = body.find(from)) != std::string::npos;)
          body.replace(at, from.size(), to);
      }
    }
    s += body + "  jx.yield %t" + std::to_string(layers - 1) + " : " + h + "\n  }\n";
    s += "  %loss = jx.reduce_sum %whole, axes = [0, 1] : " + h + " -> tensor<f32>\n";
    s += "  return %loss : tensor<f32>\n}\n";
    return s;
  }
  for (int i = 0; i < layers; ++i) {
    std::string li = std::to_string(i);
    std::string body = "  %d" + li + " = jx.dot_general %H, %W, contracting_dims = [1] x [0], "
                       "batch_dims = [] x [] : " + h + ", " + w + " -> " + h + "\n" +
                       "  %n" + li + " = jx.checkpoint_name %d" + li + ", \"layer" + li + "\" : " +
                       h + "\n";
    if (richActivation)
      body += "  %s" + li + " = jx.sin %n" + li + " : " + h + "\n  %m" + li + " = jx.mul %s" + li +
              ", %n" + li + " : " + h + "\n  %t" + li + " = jx.tanh %m" + li + " : " + h + "\n";
    else
      body += "  %t" + li + " = jx.tanh %n" + li + " : " + h + "\n";
    auto subst = [&](std::string text, const std::string &hv, const std::string &wv) {
      for (size_t at; (at = text.find("%H")) != std::string::npos;)
        text.replace(at, 2, hv);
      for (size_t at; (at = text.find("%W")) != std::string::npos;)
        text.replace(at, 2, wv);
      return text;
    };
    if (pol.empty()) {
      s += subst(body, cur, "%w" + li);
      cur = "%t" + li;
      continue;
    }
    s += "  %h" + li + " = jx.remat (" + cur + ", %w" + li + ") : (" + h + ", " + w + ") -> " + h +
         " policy = #jx.policy<" + pol + "> {\n  ^bb0(%a" + li + ": " + h + ", %b" + li + ": " +
         w + "):\n" + subst(body, "%a" + li, "%b" + li) + "  jx.yield %t" + li + " : " + h +
         "\n  }\n";
    cur = "%h" + li;
  }
  s += "  %loss = jx.reduce_sum " + cur + ", axes = [0, 1] : " + h + " -> tensor<f32>\n";
  s += "  return %loss : tensor<f32>\n}\n";
  return s;
}

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_MLPPROGRAM_H
