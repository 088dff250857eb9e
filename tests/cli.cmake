# CLI tests: error cases (message and exit status), FileCheck golden tests of
# printed stages, and the samples run end to end. Paths relative to tests/.

# Error cases: tests/errors/NAME.json (or .txt for non-JSON, .onnx for a model) with NAME.expect:
#   args: <extra arguments; default "run BATCH --verify">
#   exit: <status>
#   stderr: <text that must appear>   (several lines allowed)
file(GLOB ATOLL_ERROR_CASES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/errors/*.expect)
foreach(expect ${ATOLL_ERROR_CASES})
  get_filename_component(case ${expect} NAME_WE)
  add_test(NAME cli.error.${case}
    COMMAND ${CMAKE_COMMAND} -DATOLL=$<TARGET_FILE:atoll> -DEXPECT=${expect}
            -DDIR=${CMAKE_CURRENT_SOURCE_DIR}/errors -DWORK=${CMAKE_CURRENT_BINARY_DIR}/errors-work
            -P ${CMAKE_CURRENT_SOURCE_DIR}/errors/check_error.cmake)
  set_tests_properties(cli.error.${case} PROPERTIES LABELS "cli;src")
endforeach()

# Golden text: tests/golden/STAGE/NAME.json + NAME.check; the first line of
# the .check file is "; RUN: --graph G --stage S [--format F]".
file(GLOB ATOLL_GOLDEN_CASES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/golden/*/*.check)
foreach(check ${ATOLL_GOLDEN_CASES})
  get_filename_component(case ${check} NAME_WE)
  get_filename_component(dir ${check} DIRECTORY)
  get_filename_component(stage ${dir} NAME)
  add_test(NAME golden.${stage}.${case}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/golden/run_golden.sh $<TARGET_FILE:atoll> ${FILECHECK_EXECUTABLE} ${check})
  if(stage STREQUAL "graph" OR stage STREQUAL "clusters")
    set(layer graph)
  elseif(stage STREQUAL "llvm" OR stage STREQUAL "c" OR stage STREQUAL "npu")
    set(layer backends)
  else()
    set(layer polyhedral)
  endif()
  # Schedules depend on the host's vector width and caches: the goldens are
  # those of an AVX-512 machine with 48K/2M/105M caches, on every machine.
  set_tests_properties(golden.${stage}.${case} PROPERTIES LABELS "golden;${layer}"
                       ENVIRONMENT "ATOLL_CPU_ISA=avx512;ATOLL_CPU_CACHES=48,2048,107520;ATOLL_TUNE_MACHINE=golden")
endforeach()

# A batch of 50 graphs of 1 to 20 operators (tests/data/make_batch50.py)
# compiles, graphs in parallel; report.json has each graph's memory plan and
# manifest.json where each kernel argument lives. No timing assertion.
add_test(NAME cli.compile.batch50
  COMMAND ${CMAKE_COMMAND} -DATOLL=$<TARGET_FILE:atoll> -DBATCH=${CMAKE_CURRENT_SOURCE_DIR}/data/batch50.json
          -DWORK=${CMAKE_CURRENT_BINARY_DIR}/batch50-out -P ${CMAKE_CURRENT_SOURCE_DIR}/data/check_batch50.cmake)
set_tests_properties(cli.compile.batch50 PROPERTIES LABELS "cli;src" TIMEOUT 1200)

# Random graphs (tests/data/make_random_graphs.py) and operators that once
# failed (op_regressions.json: Pad fused with a consumer, a long in-register
# transpose (long_transpose: a loop of groups, not unrolled), AveragePool with
# ceil_mode, an InstanceNormalization whose isl schedule only the time limit
# stops, 10 s), every graph verified against the reference interpreter on
# both CPU targets.
# low_precision.json: f16/bf16 sums, means and products long enough to stall
# an accumulator of their own type (they reduce in f32).
# onnx_ops.json: PRelu, Elu, Selu, Softplus, Softsign, Mod, Tile, Resize,
# GatherElements, CastLike and RMSNormalization on odd shapes (partial
# tiles), alone and in fused chains; Resize in every mode, coordinate
# transformation and nearest mode, by scales and by sizes, 3-D to 5-D;
# ArgMax, ArgMin, Trilu, the trigonometric functions, Round, IsInf, IsNaN,
# Xor, Celu, ThresholdedRelu, Shrink, Swish, Hardmax, LpNormalization,
# LpPool, DepthToSpace, SpaceToDepth, EyeLike and OneHot.
# wide_dtypes.json: f64 (an MLP, a strided convolution, normalization,
# reductions, elementwise chains) and u8 (an image normalized and back with
# rounding, wrapping sums and differences, pooling, transposes, casts).
foreach(batch random_graphs op_regressions low_precision onnx_ops wide_dtypes)
  foreach(target cpu cpu-c)
    add_test(NAME cli.verify.${batch}.${target}
      COMMAND $<TARGET_FILE:atoll> run ${CMAKE_CURRENT_SOURCE_DIR}/data/${batch}.json --verify --target ${target} --quiet)
    set_tests_properties(cli.verify.${batch}.${target} PROPERTIES LABELS "cli;src" TIMEOUT 600)
  endforeach()
endforeach()
add_test(NAME cli.verify.low_precision.definitions
  COMMAND $<TARGET_FILE:atoll> run ${CMAKE_CURRENT_SOURCE_DIR}/data/low_precision.json --verify-definitions --quiet)
set_tests_properties(cli.verify.low_precision.definitions PROPERTIES LABELS "cli;src" TIMEOUT 600)
add_test(NAME cli.verify.onnx_ops.definitions
  COMMAND $<TARGET_FILE:atoll> run ${CMAKE_CURRENT_SOURCE_DIR}/data/onnx_ops.json --verify-definitions --quiet)
set_tests_properties(cli.verify.onnx_ops.definitions PROPERTIES LABELS "cli;src" TIMEOUT 600)

# run without --verify/--bench, --dump/--inputs round trips (bf16, names that
# are not file names), run-time Gather indices out of range, and the objects
# of a two-graph batch linked together.
add_test(NAME cli.run_io
  COMMAND ${CMAKE_COMMAND} -DATOLL=$<TARGET_FILE:atoll> -DDATA=${CMAKE_CURRENT_SOURCE_DIR}/data
          -DWORK=${CMAKE_CURRENT_BINARY_DIR}/run-io -P ${CMAKE_CURRENT_SOURCE_DIR}/data/check_run_io.cmake)
set_tests_properties(cli.run_io PROPERTIES LABELS "cli;src" TIMEOUT 600)
