# Unit tests of NPU code generation (target atoll_tests, label npu; paths relative to tests/).
target_sources(atoll_tests PRIVATE
  unit/backends/npu_codegen/npu_codegen_test.cpp
)
# The emitted C is compiled against npu_intrin.h and loaded: its npu_* calls
# resolve to the simulator linked into the test, which exports those alone
# (exporting everything would let PoCL's LLVM bind to the test's own).
target_compile_definitions(atoll_tests PRIVATE "ATOLL_NPU_INCLUDE_DIR=\"${PROJECT_SOURCE_DIR}/backends/npu/include\"")
target_link_options(atoll_tests PRIVATE
  "LINKER:--dynamic-list=${CMAKE_CURRENT_SOURCE_DIR}/unit/backends/npu_codegen/npu_symbols.list")
