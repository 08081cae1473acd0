# `cmake --install` (issue 16): headers, libraries, tools and a package
# config, so that another CMake project writes
#
#   find_package(Cotangent 0.1 REQUIRED CONFIG)
#   target_link_libraries(app PRIVATE Cotangent::jit)
#
# and gets the tracing API, the passes and the CPU runtime with everything
# they link (MLIR and LLVM from the same installation as this build's).
# The libraries go into Cotangent's own export set: add_mlir_library is
# called with DISABLE_INSTALL, or it would put them into MLIR's.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(COTANGENT_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/cotangent")
set(COTANGENT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Cotangent")

# Imported name (Cotangent::<name>) and the library behind it, bottom-up.
set(COTANGENT_EXPORTED_LIBRARIES
  runtime_core  CotangentRuntimeCore
  jx            CotangentJx
  interpreter   CotangentInterpreter
  passes        CotangentPasses
  lowering      CotangentLowering
  gpu_lowering  CotangentGpuLowering
  analysis      CotangentAnalysis
  comm          CotangentComm
  host_runtime  CotangentHostRuntime
  runtime       CotangentCpuRuntime
  cuda_driver   CotangentCudaDriver
  cuda_runtime  CotangentCudaRuntime
  tracing       CotangentTracer
  jit           CotangentJit
  npy           CotangentNpyFormat
  data          CotangentData
  checkpoint    CotangentCheckpoint
  gpt2          CotangentGpt2
)
set(COTANGENT_EXPORTED_TARGETS)
set(COTANGENT_EXPORTED_NAMES)
while(COTANGENT_EXPORTED_LIBRARIES)
  list(POP_FRONT COTANGENT_EXPORTED_LIBRARIES name target)
  if(NOT TARGET ${target}) # the CUDA ones without the toolkit
    continue()
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  # The same spelling inside this build as outside it.
  add_library(Cotangent::${name} ALIAS ${target})
  # Includes start at the package's include root, as they start at the
  # repository's here ("tracer/Jit.h").
  target_include_directories(${target} INTERFACE
    $<INSTALL_INTERFACE:${COTANGENT_INSTALL_INCLUDEDIR}>)
  list(APPEND COTANGENT_EXPORTED_TARGETS ${target})
  list(APPEND COTANGENT_EXPORTED_NAMES ${name})
endwhile()
# The tracing API's headers use C++20.
target_compile_features(CotangentJx INTERFACE cxx_std_20)

install(TARGETS ${COTANGENT_EXPORTED_TARGETS} EXPORT CotangentTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT CotangentTargets NAMESPACE Cotangent:: DESTINATION ${COTANGENT_INSTALL_CMAKEDIR})

# Every header of the product's folders, and the ones TableGen generated
# into the same folders of the build tree.
set(COTANGENT_HEADER_FOLDERS dialects passes conversion analysis runtime data checkpoint tracer models tools/common)
foreach(folder ${COTANGENT_HEADER_FOLDERS})
  get_filename_component(parent "${folder}" DIRECTORY)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/${folder}" "${PROJECT_BINARY_DIR}/${folder}"
    DESTINATION "${COTANGENT_INSTALL_INCLUDEDIR}/${parent}"
    FILES_MATCHING PATTERN "*.h" PATTERN "*.h.inc" PATTERN "*.def"
    PATTERN "CMakeFiles" EXCLUDE)
endforeach()

# The tools, finding libMLIR/libLLVM where this build found them.
set(COTANGENT_TOOLS cotangent-opt cotangent-run cotangent-interpret cotangent-step cotangent-demo)
foreach(tool ${COTANGENT_TOOLS})
  set_target_properties(${tool} PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
endforeach()
install(TARGETS ${COTANGENT_TOOLS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

list(JOIN COTANGENT_EXPORTED_NAMES ", Cotangent::" COTANGENT_EXPORTED_NAMES_SPACED)
configure_package_config_file(cmake/CotangentConfig.cmake.in
  "${PROJECT_BINARY_DIR}/CotangentConfig.cmake"
  INSTALL_DESTINATION ${COTANGENT_INSTALL_CMAKEDIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/CotangentConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/CotangentConfig.cmake"
  "${PROJECT_BINARY_DIR}/CotangentConfigVersion.cmake"
  DESTINATION ${COTANGENT_INSTALL_CMAKEDIR})
