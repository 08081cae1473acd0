# ctest's example-find-package: installs this build into WORK/install, then
# configures, builds and runs examples/find-package against it as a separate
# project would, and checks the program's output with FileCheck.
#   cmake -DBUILD=<build dir> -DSOURCE=<examples/find-package> -DWORK=<dir>
#         -DCXX=<compiler> -DCXX_FLAGS=<flags> -DFILECHECK=<FileCheck> -P BuildAgainstInstall.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${status}): ${command}\n${out}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}")
run(${CMAKE_COMMAND} --install "${BUILD}" --prefix "${WORK}/install")
set(launcher)
find_program(CCACHE ccache)
if(CCACHE)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE})
endif()
run(${CMAKE_COMMAND} -S "${SOURCE}" -B "${WORK}/build" -G Ninja -DCMAKE_BUILD_TYPE=Release
  "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" ${launcher}
  "-DCMAKE_PREFIX_PATH=${WORK}/install")
run(${CMAKE_COMMAND} --build "${WORK}/build")
# The installed tools run too.
run("${WORK}/install/bin/cotangent-opt" --version)
execute_process(
  COMMAND "${WORK}/build/mlp_step"
  COMMAND ${FILECHECK} --match-full-lines "${SOURCE}/mlp_step.cpp"
  RESULTS_VARIABLE results)
list(GET results 0 ran)
list(GET results 1 checked)
if(NOT ran EQUAL 0 OR NOT checked EQUAL 0)
  message(FATAL_ERROR "mlp_step exited ${ran}; FileCheck exited ${checked}")
endif()
