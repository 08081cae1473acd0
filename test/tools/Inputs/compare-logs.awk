# awk -v rtol=1e-6 -f compare-logs.awk REFERENCE.jsonl LOG.jsonl
# Two cotangent-train --log files step by step: prints the worst relative
# difference of their losses (and of their validation losses); exits 1
# above rtol or on step counts that differ.
function value(line, key,    re) {
  re = "\"" key "\":[-0-9.eE+]+"
  if (!match(line, re)) return ""
  return substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3) + 0
}
FNR == NR { want[++n] = value($0, "loss"); wantVal[n] = value($0, "val_loss"); next }
{ got[++m] = value($0, "loss"); gotVal[m] = value($0, "val_loss") }
END {
  if (n == 0 || n != m) { printf "compare-logs: %d reference steps, %d logged\n", n, m; exit 1 }
  worst = 0; vals = 0
  for (i = 1; i <= n; i++) {
    r = (got[i] - want[i]) / want[i]; if (r < 0) r = -r
    if (r > worst) worst = r
    if (wantVal[i] != "") {
      vals++
      r = (gotVal[i] - wantVal[i]) / wantVal[i]; if (r < 0) r = -r
      if (r > worst) worst = r
    }
  }
  printf "%d steps, %d validations: worst relative difference %s rtol %g\n", n, vals, (worst <= rtol ? "within" : "beyond"), rtol
  if (worst > rtol) exit 1
}
