# lit configuration for Cotangent's FileCheck suite.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Cotangent"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.cotangent_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "Inputs"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.cotangent_tools_dir, config.llvm_tools_dir]
tools = ["cotangent-opt", "cotangent-run", "cotangent-interpret", "cotangent-demo",
         "cotangent-bench", "cotangent-policy-table", "cotangent-step", "cotangent-train"]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="ignore") for t in tools], tool_dirs)
config.substitutions.append(("%src_root", config.cotangent_src_root))
# mlir-runner's support libraries (printMemref*), for tests that run
# lowered IR on the CPU.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
for name in ["mlir_runner_utils", "mlir_c_runner_utils"]:
    config.substitutions.append(
        (f"%{name}", os.path.join(llvm_lib_dir, f"lib{name}.so")))
config.substitutions.append(("%obj_root", config.cotangent_obj_root))

# test/gpu assembles the PTX of --jx-to-nvvm with the CUDA toolkit's ptxas.
if os.path.exists(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")):
    config.available_features.add("ptxas")

# cotangent-step is built with the CUDA toolkit; its tests link step libraries.
if os.path.exists(os.path.join(config.cotangent_tools_dir, "cotangent-step")):
    config.available_features.add("cotangent-step")
config.substitutions.append(("%cxx", config.cxx))
# Open MPI's mpirun and Cotangent's MPI plugin (built where Open MPI is).
if shutil.which("mpirun") and os.path.exists(
        os.path.join(config.cotangent_obj_root, "lib", "libCotangentMpi.so")):
    config.available_features.add("mpi")

# The CUDA driver double (test/gpu/fake-cuda): steps run without a GPU,
# kernels excepted, with it first on LD_LIBRARY_PATH.
fake_cuda = os.path.join(config.cotangent_obj_root, "fake-cuda")
if os.path.exists(os.path.join(fake_cuda, "libcuda.so.1")):
    config.available_features.add("fake-cuda")
config.substitutions.append(("%fake_cuda", fake_cuda))

# With COTANGENT_ROUNDTRIP=1 every cotangent-opt run also checks that its
# output prints, parses and prints again identically (CIRCT's habit).
if os.environ.get("COTANGENT_ROUNDTRIP") == "1":
    config.substitutions.insert(
        0, ("cotangent-opt ", "cotangent-opt --verify-roundtrip "))

# The built-in training text (Debian's base-files ships it on every machine).
if os.path.exists("/usr/share/common-licenses/GPL-3"):
    config.available_features.add("debian-gpl3")
