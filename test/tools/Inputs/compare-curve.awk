# awk -v rtol=0.02 [-v window=10] -f compare-curve.awk REFERENCE.json LOG.jsonl
# The losses of a cotangent-train --log (one JSON line per step) against a
# reference curve (test/jax/reference/train-*.json, "losses" one a line):
# prints the worst relative difference, of single steps or of the means of
# consecutive windows of `window` steps (default 1); exits 1 above rtol or
# on a step count that differs.
FNR == NR {
  if ($0 ~ /"losses"/) { inside = 1; next }
  if (inside && $0 ~ /\]/) { inside = 0; next }
  if (inside) { gsub(/[ ,]/, ""); want[++n] = $0 + 0 }
  next
}
{
  if (match($0, /"loss":[-0-9.eE+]+/)) {
    got[++m] = substr($0, RSTART + 7, RLENGTH - 7) + 0
  }
}
END {
  if (n == 0 || n != m) { printf "compare-curve: %d reference steps, %d logged\n", n, m; exit 1 }
  if (window < 1) window = 1
  worst = 0; at = 0
  for (i = 1; i + window - 1 <= n; i += window) {
    g = 0; w = 0
    for (j = i; j < i + window; j++) { g += got[j]; w += want[j] }
    d = g - w; if (d < 0) d = -d
    r = d / w
    if (r > worst) { worst = r; at = i }
  }
  printf "%d steps: loss %.4f -> %.4f (reference %.4f -> %.4f), worst relative difference %.2e at step %d%s\n", n, got[1], got[n], want[1], want[n], worst, at, (window > 1 ? " (means of " window " steps)" : "")
  if (worst > rtol) exit 1
}
