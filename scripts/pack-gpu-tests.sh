#!/usr/bin/env bash
# Packs ctest's gpu-device for a GPU machine that has no MLIR, LLVM or package
# registry (docs/gpu.md): cotangent-gpu-tests, cotangent-gpu-array-tests
# (arrays and collectives) and cotangent-run with every
# shared library they load beyond glibc's and the CUDA driver's (libMLIR,
# libLLVM, OpenBLAS, libomp, COIN-OR, ...), xz-compressed, the JIT's helper
# libraries, and empty stand-ins for libz3 and ICU, which libLLVM and libxml2
# link but these programs never call (and a trapping one for LAPACK). About 50 MiB. Usage:
#
#   scripts/pack-gpu-tests.sh [OUT_DIR]      # default build/gpu-tests-pack
#
# On the GPU machine, from a copy of this repository: bash OUT_DIR/run.sh
# (unpacks to /tmp/cotangent-gpu-tests, runs each test binary with --device-tests;
# the collectives' NCCL is the one JAX's CUDA plugin installed, unless
# COTANGENT_NCCL_LIBRARY names another).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/build/gpu-tests-pack}"
B="$root/build"
bins=("$B/test/gpu/cotangent-gpu-tests" "$B/test/gpu/cotangent-gpu-array-tests"
      "$B/bin/cotangent-run" "$B/bin/cotangent-bench")
for b in "${bins[@]}"; do [ -x "$b" ] || { echo "pack-gpu-tests: build $b first" >&2; exit 1; }; done
rm -rf "$out"
mkdir -p "$out/lib" "$out/bin"
system='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|libz|libbz2|liblzma|libzstd|libcuda)\.'
helpers=(/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so /usr/lib/llvm-22/lib/libmlir_float16_utils.so.22.1
         /usr/lib/llvm-22/lib/libmlir_apfloat_wrappers.so.22.1)
ldd "${bins[@]}" "${helpers[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r name path; do
    [[ "$name" =~ $system || "$name" == libz3.* || "$name" == libicu* || "$name" == liblapack.* ]] &&
      continue
    # x86 BCJ: 4% smaller than plain LZMA2 on libLLVM and libMLIR
    xz --x86 --lzma2=preset=9 -T2 -c "$(readlink -f "$path")" >"$out/lib/$name.xz"
  done
for h in "${helpers[@]}"; do xz -6 -c "$(readlink -f "$h")" >"$out/lib/$(basename "$h").xz"; done
for b in "${bins[@]}"; do xz -6 -T2 -c "$b" >"$out/bin/$(basename "$b").xz"; done
# Stand-ins: every symbol the real library would give, as an empty function.
stub() {
  nm -D --undefined-only "$1" | awk -v p="$2" '$2 ~ p {print $2}' | sed 's/@.*//' | sort -u |
    sed 's/.*/void &(void){}/' >"$out/stub.c"
  ${CC:-cc} -shared -o "$out/lib/$3" -Wl,-soname,"$3" "$out/stub.c"
  rm "$out/stub.c"
}
stub "$(readlink -f /lib/x86_64-linux-gnu/libxml2.so.2)" '_72$' libicuuc.so.72
stub "$(readlink -f /usr/lib/x86_64-linux-gnu/libLLVM.so.22.1)" '^Z3_' libz3.so.4
# LAPACK (2.3 MB packed) is linked by COIN-OR's CoinUtils, for factorizations
# the MILP of memory_budget may reach and the GPU tests never do: its
# stand-in stops the program if one is called.
lapack=$(readlink -f "$(ldconfig -p | awk '$1 == "liblapack.so.3" {print $NF; exit}')")
nm -D --defined-only "$lapack" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$out/lapack.txt"
nm -D --undefined-only "$(readlink -f "$(ldconfig -p | awk '$1 == "libCoinUtils.so.3" {print $NF; exit}')")" |
  awk '{print $2}' | sed 's/@.*//' | sort -u | comm -12 - "$out/lapack.txt" |
  sed 's/.*/void &(void){__builtin_trap();}/' >"$out/stub.c"
${CC:-cc} -shared -o "$out/lib/liblapack.so.3" -Wl,-soname,liblapack.so.3 "$out/stub.c"
rm "$out/stub.c" "$out/lapack.txt"
# The test reads its inputs from this source tree's path, compiled in.
cat >"$out/run.sh" <<RUN
#!/usr/bin/env bash
# gpu-device on this machine (made by scripts/pack-gpu-tests.sh); run from the repository's root.
set -u
K=\$(cd "\$(dirname "\$0")" && pwd); T=/tmp/cotangent-gpu-tests
mkdir -p "\$T/lib" "\$T/bin" /usr/lib/llvm-22/lib
python3 - "\$K" "\$T" <<'PY'
import glob, lzma, os, shutil, sys
K, T = sys.argv[1:]
for f in glob.glob(K + "/lib/*") + glob.glob(K + "/bin/*"):
    dst = os.path.join(T, "bin" if "/bin/" in f else "lib", os.path.basename(f).removesuffix(".xz"))
    if f.endswith(".xz"): open(dst, "wb").write(lzma.open(f).read())
    else: shutil.copy(f, dst)
    os.chmod(dst, 0o755)
PY
# The JIT opens its helpers by the path they have on the build machine.
cp "\$T"/lib/libmlir_*.so* /usr/lib/llvm-22/lib/
[ -e "$root/test/gpu/Inputs" ] || { mkdir -p "$(dirname "$root")" && ln -s "\$PWD" "$root"; }
# NCCL for the collectives: JAX's (the nvidia-nccl wheel its CUDA plugin depends on).
if [ -z "\${COTANGENT_NCCL_LIBRARY:-}" ]; then
  nccl=\$(python3 -c 'import glob, os, nvidia.nccl as n; print((glob.glob(os.path.join(list(n.__path__)[0], "lib", "libnccl.so*")) or [""])[0])' 2>/dev/null)
  [ -n "\$nccl" ] && export COTANGENT_NCCL_LIBRARY="\$nccl"
fi
status=0
for t in cotangent-gpu-tests cotangent-gpu-array-tests; do
  LD_LIBRARY_PATH="\$T/lib" "\$T/bin/\$t" --device-tests "\$@" || status=\$?
done
exit \$status
RUN
chmod +x "$out/run.sh"
echo "pack-gpu-tests: $(du -sh "$out" | cut -f1) in $out; on the GPU machine: bash $(basename "$out")/run.sh"
