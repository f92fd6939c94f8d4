# `cmake --install build [--prefix DIR]`: the privamp executable, the static libraries behind privamp::privamp, the
# public headers (include/privamp/privamp.hpp and the headers it includes, found by following the includes), a
# CMake package (lib/cmake/privamp) and the shipped cases and figures (share/privamp). The Python module installs itself (python/CMakeLists.txt).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# (The target is privamp_library here, since `privamp` is the executable; it is exported as privamp::privamp.)
add_library(privamp_library INTERFACE)
add_library(privamp::privamp ALIAS privamp_library)
set_target_properties(privamp_library PROPERTIES EXPORT_NAME privamp)
target_link_libraries(privamp_library INTERFACE privamp_verify)
# The headers need C++20 (std::span, designated initialisers): a consumer gets it from the target, whatever its own
# default.
target_compile_features(privamp_library INTERFACE cxx_std_20)
foreach(library privamp_numerics privamp_sim privamp_verify)
  target_compile_features(${library} PUBLIC cxx_std_20)
endforeach()
target_include_directories(privamp_library INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS privamp_library privamp_numerics privamp_sim privamp_verify EXPORT privampTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/privamp)

# The header closure of the public API: every project header reachable from include/privamp/privamp.hpp.
set(pending "${PROJECT_SOURCE_DIR}/include/privamp/privamp.hpp")
set(seen "")
while(pending)
  list(POP_FRONT pending file)
  file(STRINGS "${file}" lines REGEX "^#include \"[^\"]+\"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
    if(EXISTS "${PROJECT_SOURCE_DIR}/${header}" AND NOT header IN_LIST seen)
      list(APPEND seen "${header}")
      list(APPEND pending "${PROJECT_SOURCE_DIR}/${header}")
    endif()
  endforeach()
endwhile()
# (Computed at configure time: a change to any header of the closure re-runs CMake, so the closure stays current.)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/include/privamp/privamp.hpp")
foreach(header IN LISTS seen)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${header}")
  get_filename_component(dir "${header}" DIRECTORY)
  install(FILES "${PROJECT_SOURCE_DIR}/${header}" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/privamp/${dir})
endforeach()
install(FILES include/privamp/privamp.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/privamp)

# The shipped cases (with their golden results) and figure tables: an installed `privamp verify`, `list`, `explore`
# and `figures` use them when the working directory has none (cli/options.cpp, data_path).
install(DIRECTORY cases/ DESTINATION ${CMAKE_INSTALL_DATADIR}/privamp/cases)
install(FILES plots/figures.toml DESTINATION ${CMAKE_INSTALL_DATADIR}/privamp/plots)
install(DIRECTORY docs/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/privamp/docs/examples)

install(EXPORT privampTargets NAMESPACE privamp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/privamp)
configure_package_config_file(cmake/privampConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/privampConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/privamp)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/privampConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/privampConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/privampConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindArb.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/privamp)
