# The reliability builds of issue 19 (docs/reliability.md), both clang-only:
#  COTANGENT_SANITIZE  ASan + UBSan over Cotangent's own code (the Debian
#                      MLIR/LLVM dylib stays uninstrumented; see
#                      test/sanitizers/ for what that means).
#  COTANGENT_FUZZ      libFuzzer coverage over Cotangent's code and the
#                      harnesses under fuzz/ linked with -fsanitize=fuzzer.
# Without COTANGENT_FUZZ the same harnesses are built against a small main
# that replays files, so the checked-in corpora and every kept crasher run
# in the ordinary test suite too.
option(COTANGENT_SANITIZE "Build Cotangent with AddressSanitizer and UBSan (clang)" OFF)
option(COTANGENT_FUZZ "Build the libFuzzer harnesses under fuzz/ (clang)" OFF)

if((COTANGENT_SANITIZE OR COTANGENT_FUZZ) AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "COTANGENT_SANITIZE and COTANGENT_FUZZ need clang "
    "(scripts/test.sh --sanitize configures build-sanitize/ with clang-22)")
endif()

if(COTANGENT_SANITIZE)
  # vptr needs RTTI, which LLVM's headers build without; every other UBSan
  # check aborts at the first report so ctest sees it.
  set(COTANGENT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize=vptr
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer -gline-tables-only)
  add_compile_options(${COTANGENT_SANITIZE_FLAGS})
  add_link_options(-fsanitize=address,undefined)
endif()

if(COTANGENT_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
