# The version and the commit of this build, for `privamp --version`: cli/version.hpp in the build tree. The commit
# is read from git when the source is a checkout ("unknown" otherwise, e.g. from a release archive); CMake re-runs
# when HEAD or the branch it points to moves, so the commit stays current.
set(PRIVAMP_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status ERROR_QUIET)
  if(status EQUAL 0 AND commit)
    set(PRIVAMP_COMMIT "${commit}")
  endif()
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --git-path HEAD WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                  OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND "${GIT_EXECUTABLE}" symbolic-ref -q HEAD WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                  OUTPUT_VARIABLE branch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  foreach(ref IN ITEMS "${head}" ".git/${branch}" ".git/packed-refs")
    if(ref AND EXISTS "${PROJECT_SOURCE_DIR}/${ref}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${ref}")
    endif()
  endforeach()
endif()
configure_file("${PROJECT_SOURCE_DIR}/cli/version.hpp.in" "${PROJECT_BINARY_DIR}/generated/cli/version.hpp" @ONLY)
