# ONNX models (tests/onnx/models, written by tests/onnx/make_test_models.py):
# each runs end to end against the reference interpreter, and through
# `atoll import` as a batch file; the Python oracle test compares them with
# onnxruntime. The error models are cases of tests/errors (cli.cmake).
file(GLOB ATOLL_ONNX_MODELS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/onnx/models/*.onnx)
foreach(model ${ATOLL_ONNX_MODELS})
  get_filename_component(name ${model} NAME_WE)
  set(params)
  set(params_text "")
  if(name STREQUAL "symbolic" OR name STREQUAL "external")
    set(params --param batch=5)
    set(params_text "--param batch=5")
  endif()
  add_test(NAME onnx.verify.${name} COMMAND $<TARGET_FILE:atoll> run ${model} --verify --quiet ${params})
  add_test(NAME onnx.import.${name}
    COMMAND bash -c "set -e; rm -rf \"$1\"; \"$0\" import \"$2\" -o \"$1/${name}.json\" --quiet; \"$0\" run \"$1/${name}.json\" --verify --quiet ${params_text}"
            $<TARGET_FILE:atoll> ${CMAKE_CURRENT_BINARY_DIR}/onnx-import/${name} ${model})
  set_tests_properties(onnx.verify.${name} onnx.import.${name} PROPERTIES LABELS "onnx;src" TIMEOUT 300)
endforeach()

# onnxruntime as a second oracle: needs a Python with numpy, onnx and
# onnxruntime (scripts/test.sh makes the virtual environment build/venv and
# passes -DATOLL_TEST_PYTHON). Without one the test fails, naming what is
# missing, unless ATOLL_SKIP_PYTHON_TESTS=1 is set in the environment.
set(ATOLL_TEST_PYTHON "${PROJECT_BINARY_DIR}/venv/bin/python" CACHE FILEPATH
    "Python with numpy, onnx and onnxruntime for the Python tests")
add_test(NAME onnx.onnxruntime
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/onnx/run_python_test.sh ${ATOLL_TEST_PYTHON}
          ${CMAKE_CURRENT_SOURCE_DIR}/onnx/check_onnxruntime.py $<TARGET_FILE:atoll> ${ATOLL_ONNX_MODELS})
set_tests_properties(onnx.onnxruntime PROPERTIES LABELS "onnx;python;src" TIMEOUT 600 SKIP_RETURN_CODE 77)
