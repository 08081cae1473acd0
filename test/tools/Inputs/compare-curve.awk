# awk -v rtol=0.02 -f compare-curve.awk REFERENCE.json LOG.jsonl
# The losses of a cotangent-train --log (one JSON line per step) against a
# reference curve (test/jax/reference/train-*.json, "losses" one a line):
# prints the worst relative difference; exits 1 above rtol or on a step
# count that differs.
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
  worst = 0; at = 0
  for (i = 1; i <= n; i++) {
    d = got[i] - want[i]; if (d < 0) d = -d
    r = d / want[i]
    if (r > worst) { worst = r; at = i }
  }
  printf "%d steps: loss %.4f -> %.4f (reference %.4f -> %.4f), worst relative difference %.2e at step %d\n", n, got[1], got[n], want[1], want[n], worst, at
  if (worst > rtol) exit 1
}
