# Runs one example and checks its standard output with FileCheck against the
# CHECK lines of the example's source. Usage:
#   cmake -DEXAMPLE=<binary> -DCHECKS=<source.cpp> -DFILECHECK=<FileCheck> -P CheckExample.cmake
execute_process(
  COMMAND ${EXAMPLE}
  COMMAND ${FILECHECK} --match-full-lines ${CHECKS}
  RESULTS_VARIABLE results)
list(GET results 0 run)
list(GET results 1 check)
if(NOT run EQUAL 0)
  message(FATAL_ERROR "${EXAMPLE} failed: ${run}")
endif()
if(NOT check EQUAL 0)
  message(FATAL_ERROR "the output of ${EXAMPLE} does not match the CHECK lines of ${CHECKS}")
endif()
