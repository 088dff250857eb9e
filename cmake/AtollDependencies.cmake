# Finds Atoll's dependencies, all from Debian packages: isl, PPL, LLVM 19
# (static component libraries only), Boost.Graph, nlohmann_json, doctest, and
# ONNX's protobuf classes (libonnx-dev, with libprotobuf-dev) for .onnx files.

# isl: its C++ interface isl/cpp.h. Debian ships no CMake config.
find_path(ISL_INCLUDE_DIR isl/cpp.h REQUIRED)
find_library(ISL_LIBRARY NAMES isl REQUIRED)
add_library(atoll::isl UNKNOWN IMPORTED)
set_target_properties(atoll::isl PROPERTIES IMPORTED_LOCATION ${ISL_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${ISL_INCLUDE_DIR})

# PPL (and the GMP it is built on).
find_path(PPL_INCLUDE_DIR ppl.hh PATH_SUFFIXES x86_64-linux-gnu REQUIRED)
find_library(PPL_LIBRARY NAMES ppl REQUIRED)
find_library(GMPXX_LIBRARY NAMES gmpxx REQUIRED)
find_library(GMP_LIBRARY NAMES gmp REQUIRED)
add_library(atoll::ppl INTERFACE IMPORTED)
# PPL's automatic initialisation would switch the whole process's FPU to
# round-upward at start-up; Atoll initialises PPL itself (polyhedral/isl/ppl_init.h)
# and restores round-to-nearest at once (MIP_Problem's arithmetic is exact).
set_target_properties(atoll::ppl PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${PPL_INCLUDE_DIR}
                      INTERFACE_COMPILE_DEFINITIONS PPL_NO_AUTOMATIC_INITIALIZATION
                      INTERFACE_LINK_LIBRARIES "${PPL_LIBRARY};${GMPXX_LIBRARY};${GMP_LIBRARY}")

# LLVM 19. Never libLLVM.so: Debian's shared LLVM exports Polly's copy of isl,
# which would silently take the place of libisl. Static components only.
# LLVM's version file accepts only an exact major.minor, so look in llvm-19 and check the major.
find_package(LLVM REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "Atoll needs LLVM 19 (llvm-19-dev); found ${LLVM_PACKAGE_VERSION}")
endif()
llvm_map_components_to_libnames(ATOLL_LLVM_LIBS
  core support irreader passes orcjit native nativecodegen target targetparser
  analysis transformutils scalaropts instcombine vectorize ipo mc object)
foreach(lib IN LISTS ATOLL_LLVM_LIBS)
  if(lib STREQUAL "LLVM")
    message(FATAL_ERROR "LLVM component mapping returned libLLVM.so; Atoll needs static components")
  endif()
endforeach()
add_library(atoll::llvm INTERFACE IMPORTED)
separate_arguments(ATOLL_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
set_target_properties(atoll::llvm PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${LLVM_INCLUDE_DIRS}"
  INTERFACE_COMPILE_OPTIONS "${ATOLL_LLVM_DEFS}"
  INTERFACE_LINK_LIBRARIES "${ATOLL_LLVM_LIBS}")

find_package(Boost 1.74 REQUIRED COMPONENTS graph)
find_package(nlohmann_json 3 REQUIRED CONFIG)
find_package(doctest REQUIRED CONFIG)
find_package(Threads REQUIRED)
# ONNX's CMake config names protobuf::libprotobuf, which FindProtobuf defines.
find_package(Protobuf REQUIRED)
find_package(ONNX REQUIRED CONFIG)

find_program(FILECHECK_EXECUTABLE FileCheck PATHS /usr/lib/llvm-19/bin NO_DEFAULT_PATH)
find_program(FILECHECK_EXECUTABLE FileCheck)
