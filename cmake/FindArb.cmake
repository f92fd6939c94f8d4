# Arb (ball arithmetic, rigorous integration) and FLINT, as Debian ships them (libflint-arb-dev): no CMake or
# pkg-config files, so the headers and libraries are found by name. Defines the imported target Arb::arb. GMP (FLINT's
# integers, which FLINT's inline functions call directly) comes with it (libgmp-dev, a dependency of libflint-dev).
find_path(Arb_INCLUDE_DIR NAMES arb.h acb_calc.h)
find_path(Arb_FLINT_INCLUDE_DIR NAMES flint/flint.h)
find_library(Arb_LIBRARY NAMES flint-arb arb)
find_library(Arb_FLINT_LIBRARY NAMES flint)
find_library(Arb_GMP_LIBRARY NAMES gmp)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Arb REQUIRED_VARS Arb_LIBRARY Arb_FLINT_LIBRARY Arb_GMP_LIBRARY Arb_INCLUDE_DIR Arb_FLINT_INCLUDE_DIR)
if(Arb_FOUND AND NOT TARGET Arb::arb)
  add_library(Arb::arb INTERFACE IMPORTED)
  set_target_properties(Arb::arb PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${Arb_INCLUDE_DIR};${Arb_FLINT_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${Arb_LIBRARY};${Arb_FLINT_LIBRARY};${Arb_GMP_LIBRARY}")
endif()
mark_as_advanced(Arb_INCLUDE_DIR Arb_FLINT_INCLUDE_DIR Arb_LIBRARY Arb_FLINT_LIBRARY Arb_GMP_LIBRARY)
