# Provides the imported targets floe::arrow, floe::parquet, floe::compute, floe::acero and
# floe::dataset: from a system Arrow when find_package finds one, else from the pinned
# pyarrow wheel in the project virtualenv (its headers and shared libraries).

set(FLOE_PYTHON "${CMAKE_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH "Python with pyarrow")
option(FLOE_USE_SYSTEM_ARROW "Prefer an Arrow C++ found by find_package" ON)

if(FLOE_USE_SYSTEM_ARROW)
  find_package(Arrow QUIET CONFIG)
  find_package(Parquet QUIET CONFIG)
  find_package(ArrowDataset QUIET CONFIG)
  find_package(ArrowAcero QUIET CONFIG)
endif()

if(Arrow_FOUND AND Parquet_FOUND AND ArrowDataset_FOUND AND ArrowAcero_FOUND)
  message(STATUS "floe: using system Arrow ${Arrow_VERSION}")
  foreach(pair "arrow;Arrow::arrow_shared" "parquet;Parquet::parquet_shared"
               "acero;ArrowAcero::arrow_acero_shared" "dataset;ArrowDataset::arrow_dataset_shared")
    list(GET pair 0 short)
    list(GET pair 1 target)
    add_library(floe::${short} INTERFACE IMPORTED)
    target_link_libraries(floe::${short} INTERFACE ${target})
  endforeach()
  add_library(floe::compute INTERFACE IMPORTED)
  if(TARGET ArrowCompute::arrow_compute_shared)
    target_link_libraries(floe::compute INTERFACE ArrowCompute::arrow_compute_shared)
  else()
    target_link_libraries(floe::compute INTERFACE floe::arrow)
  endif()
  return()
endif()

if(NOT EXISTS "${FLOE_PYTHON}")
  message(FATAL_ERROR "floe: no system Arrow and no ${FLOE_PYTHON}; run scripts/setup.sh first")
endif()
execute_process(
  COMMAND "${FLOE_PYTHON}" -c "import pyarrow as pa; print(pa.get_include()); print(pa.get_library_dirs()[0]); print(pa.__version__)"
  OUTPUT_VARIABLE _pa_out RESULT_VARIABLE _pa_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _pa_rc EQUAL 0)
  message(FATAL_ERROR "floe: ${FLOE_PYTHON} cannot import pyarrow")
endif()
string(REPLACE "\n" ";" _pa_out "${_pa_out}")
list(GET _pa_out 0 FLOE_ARROW_INCLUDE_DIR)
list(GET _pa_out 1 FLOE_ARROW_LIB_DIR)
list(GET _pa_out 2 FLOE_ARROW_VERSION)
message(STATUS "floe: using Arrow ${FLOE_ARROW_VERSION} from pyarrow at ${FLOE_ARROW_LIB_DIR}")
set(FLOE_ARROW_LIB_DIR "${FLOE_ARROW_LIB_DIR}" CACHE INTERNAL "")

function(floe_import_pyarrow_lib short libname)
  file(GLOB _candidates "${FLOE_ARROW_LIB_DIR}/lib${libname}.so.*")
  list(FILTER _candidates EXCLUDE REGEX "\\.so\\.[0-9]+\\.[0-9]+")
  list(LENGTH _candidates _n)
  if(_n EQUAL 0)
    message(FATAL_ERROR "floe: lib${libname}.so.* not found in ${FLOE_ARROW_LIB_DIR}")
  endif()
  list(GET _candidates 0 _lib)
  add_library(floe::${short} SHARED IMPORTED GLOBAL)
  set_target_properties(floe::${short} PROPERTIES
    IMPORTED_LOCATION "${_lib}"
    IMPORTED_NO_SONAME FALSE
    INTERFACE_INCLUDE_DIRECTORIES "${FLOE_ARROW_INCLUDE_DIR}")
  # Arrow's headers are third-party: keep their warnings out of ours.
  set_property(TARGET floe::${short} PROPERTY INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${FLOE_ARROW_INCLUDE_DIR}")
endfunction()

floe_import_pyarrow_lib(arrow arrow)
floe_import_pyarrow_lib(parquet parquet)
floe_import_pyarrow_lib(compute arrow_compute)
floe_import_pyarrow_lib(acero arrow_acero)
floe_import_pyarrow_lib(dataset arrow_dataset)
target_link_libraries(floe::parquet INTERFACE floe::arrow)
target_link_libraries(floe::compute INTERFACE floe::arrow)
target_link_libraries(floe::acero INTERFACE floe::compute)
target_link_libraries(floe::dataset INTERFACE floe::acero floe::parquet)
list(APPEND CMAKE_BUILD_RPATH "${FLOE_ARROW_LIB_DIR}")
