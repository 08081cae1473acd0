#!/usr/bin/env python3
"""Checks a GPU-check folder (scripts/gpu-check.sh) without a GPU.

- it is under 60 MiB;
- bin/cotangent-step and every step library load no MLIR or LLVM (ldd);
- every step's kernels are fat binaries holding a cubin for each of sm_80 and
  sm_90 (the CUDA ELF images' e_flags, read from the library; cuobjdump
  --list-elf as well where the toolkit has it);
- `cotangent-step STEP --check-only` reads every step's manifest and its
  shipped arguments;
- without a GPU, running a step exits 77 with "no CUDA device" (the step
  library loads, and fails cleanly).

    check-folder.py FOLDER
"""
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

EM_CUDA = 0xBE


def cuda_archs(blob):
    """The SM versions of the CUDA ELF images in `blob`."""
    archs = set()
    for m in re.finditer(rb"\x7fELF\x02\x01", blob):
        at = m.start()
        machine = struct.unpack_from("<H", blob, at + 18)[0]
        if machine == EM_CUDA:
            flags = struct.unpack_from("<I", blob, at + 48)[0]
            archs.add((flags >> 8) & 0xFF)
    return archs


def main():
    folder = sys.argv[1]
    failures = []
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs)
    print(f"folder: {size / 2**20:.2f} MiB")
    if size >= 60 * 2**20:
        failures.append(f"the folder is {size / 2**20:.1f} MiB (limit 60)")
    step = os.path.join(folder, "bin", "cotangent-step")
    models = [l.split() for l in open(os.path.join(folder, "models.txt"))
              if l.strip() and not l.startswith("#")]
    if not models:
        failures.append("models.txt lists no model")
    tmp = tempfile.mkdtemp()
    cuobjdump = shutil.which("cuobjdump") or (
        "/usr/local/cuda/bin/cuobjdump" if os.path.exists("/usr/local/cuda/bin/cuobjdump") else None)
    libraries = [step]
    for name, kind, _ in models:
        so = os.path.join(tmp, name + ".so")
        with open(so, "wb") as f:
            f.write(lzma.open(os.path.join(folder, "steps", name + ".so.xz")).read())
        libraries.append(so)
        archs = cuda_archs(open(so, "rb").read())
        print(f"{name}: CUDA images for sm_{', sm_'.join(map(str, sorted(archs)))}")
        if not {80, 90} <= archs:
            failures.append(f"{name}: no cubin for sm_80 and sm_90 (found {sorted(archs)})")
        if cuobjdump:
            listing = subprocess.run([cuobjdump, "--list-elf", so], capture_output=True, text=True)
            if listing.returncode or "sm_80" not in listing.stdout or "sm_90" not in listing.stdout:
                failures.append(f"{name}: cuobjdump --list-elf: {listing.stdout}{listing.stderr}")
        args = []
        inputs = os.path.join(folder, "models", name, "inputs")
        if kind == "reference":
            files = sorted(os.listdir(inputs), key=lambda f: int(f[3:-4]))
            for f in files:
                args += ["--input", os.path.join(inputs, f)]
        check = subprocess.run([step, so, "--check-only", *args], capture_output=True, text=True)
        if check.returncode:
            failures.append(f"{name}: --check-only failed: {check.stderr.strip()}")
        run = subprocess.run([step, so, *args, "--repeat", "1", "--warmup", "0"],
                             capture_output=True, text=True)
        if run.returncode == 77:
            if "no CUDA device" not in run.stderr:
                failures.append(f"{name}: exit 77 without saying 'no CUDA device': {run.stderr}")
        elif run.returncode != 0:
            failures.append(f"{name}: running it failed ({run.returncode}): {run.stderr.strip()}")
    for lib in libraries:
        ldd = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
        bad = [l.strip() for l in ldd.splitlines() if re.search(r"lib(MLIR|LLVM|mlir_)", l)]
        if bad:
            failures.append(f"{os.path.basename(lib)} loads {bad}")
    print(f"ldd: {len(libraries)} programs and libraries checked")
    shutil.rmtree(tmp)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(models) * 4 + 1 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
