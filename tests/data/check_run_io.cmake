# Runs atoll's run/compile input and output paths end to end (see cli.cmake: cli.run_io).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(atoll want)
  execute_process(COMMAND ${ATOLL} ${ARGN} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 300)
  if(NOT rc STREQUAL want)
    message(FATAL_ERROR "atoll ${ARGN}: exit ${rc}, expected ${want}\n${out}\n${err}")
  endif()
  set(err "${err}" PARENT_SCOPE)
endfunction()
set(batch ${DATA}/run_io.json)

# run alone runs each graph once; --dump writes inputs and outputs, names made safe.
atoll(0 run ${batch} --dump d1)
foreach(f d1/bf/x.npy d1/bf/y%2Fz.npy d1/bf/s.npy d1/gather/y.npy)
  if(NOT EXISTS ${WORK}/${f})
    message(FATAL_ERROR "run --dump did not write ${f}")
  endif()
endforeach()
# What --dump wrote reads back (bf16 as <f4), and verifies.
atoll(0 run ${batch} --verify --inputs d1)

# A run-time index outside the axis (generated from its init): the compiled
# code reads guarded (no crash), --verify reports the reference's error.
atoll(0 run ${DATA}/run_io_bad_index.json --bench)
atoll(1 run ${DATA}/run_io_bad_index.json --verify)
string(FIND "${err}" "out of range" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "--verify with an index out of range: ${err}")
endif()

# A wrong dtype in --inputs is an error.
file(MAKE_DIRECTORY ${WORK}/wrong/gather)
file(COPY ${WORK}/d1/gather/i.npy DESTINATION ${WORK}/wrong/gather)
file(RENAME ${WORK}/wrong/gather/i.npy ${WORK}/wrong/gather/x.npy)
atoll(1 run ${batch} --verify --inputs wrong)
string(FIND "${err}" "holds <i8 but 'x' is f32" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "--inputs with a wrong dtype: ${err}")
endif()

# compile: the two graphs' objects link into one (symbols carry the graph's name).
atoll(0 compile ${batch} -o out)
find_program(CC NAMES cc gcc clang)
if(CC)
  execute_process(COMMAND ${CC} -r -o both.o out/bf.o out/gather.o WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the objects of one batch do not link together: ${err}")
  endif()
  file(WRITE ${WORK}/both.c "#include \"out/bf.h\"\n#include \"out/gather.h\"\nvoid (*f[])(void **, const int64_t *) = {bf_n0_entry, gather_n0_entry};\n")
  execute_process(COMMAND ${CC} -std=c99 -c both.c -o both_c.o WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the headers of one batch do not combine: ${err}")
  endif()
endif()
