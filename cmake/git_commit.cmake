# The report names the commit it was built from; a tarball build says "unknown".
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  OUTPUT_VARIABLE CUDIAG_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET RESULT_VARIABLE _git_rc)
if(NOT _git_rc EQUAL 0 OR CUDIAG_GIT_COMMIT STREQUAL "")
  set(CUDIAG_GIT_COMMIT "unknown")
endif()
