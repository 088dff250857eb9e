# The tuner (label tune; docs/tuning.md): tests/tune/check_tune.sh runs the
# space, tuning with records, a second run that measures nothing, records
# applied by run and explain, injected faults and shards, in about 30 s.
add_test(NAME tune.end_to_end
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tune/check_tune.sh $<TARGET_FILE:atoll> ${CMAKE_CURRENT_BINARY_DIR}/tune-work)
set_tests_properties(tune.end_to_end PROPERTIES LABELS "tune;src" TIMEOUT 600)
