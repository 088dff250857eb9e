# The tuner (label tune; docs/tuning.md): tests/tune/check_tune.sh runs the
# space, tuning with records, a second run that measures nothing, records
# applied by run and explain, injected faults and shards, in about 30 s.
add_test(NAME tune.end_to_end
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tune/check_tune.sh $<TARGET_FILE:atoll> ${CMAKE_CURRENT_BINARY_DIR}/tune-work)
set_tests_properties(tune.end_to_end PROPERTIES LABELS "tune;src" TIMEOUT 600)
# compile --shard I/N and merge: the shards' files equal one compile's.
add_test(NAME tune.compile_shards
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tune/check_compile_shards.sh $<TARGET_FILE:atoll>
          ${PROJECT_SOURCE_DIR}/samples/custom_compute.json ${CMAKE_CURRENT_BINARY_DIR}/compile-shards-work)
set_tests_properties(tune.compile_shards PROPERTIES LABELS "tune;src" TIMEOUT 600)
