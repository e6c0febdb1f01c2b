# Unity builds: a target's .cc files are compiled a few at a time through generated files
# that include them, so the Arrow headers most of them share are parsed once per group
# instead of once per file. This roughly halves a build from nothing.
#
# CMake's own UNITY_BUILD writes absolute paths into its generated files, which makes every
# clone of the repository a new ccache key; these files name their sources relative to the
# checkout (resolved through an include path on the checkout's root), so a fresh clone in
# another folder still hits the cache. They live in one folder of the checkout,
# build-unity/, named by their contents: the release build and the Python package's build
# (build-python/) compile the very same files with the same flags, so ccache serves one
# from the other.
#
# A source keeps its own compile when it has per-file compile options or definitions, or
# is listed in FLOE_UNITY_SKIP.

option(FLOE_UNITY_BUILD "Compile sources in groups (unity build)" ON)
set(FLOE_UNITY_BATCH 8 CACHE STRING "Sources per unity group")
# GCC 12 at -O2 sees a SortKey's FieldRef as maybe uninitialized once window_functions.cc
# is inlined beside its neighbours (a false positive; alone it compiles clean).
# CRoaring 0.2's headers define feature-test macros and short names (ALIGNED, IS_X64, ...)
# that must not reach the sources grouped after deletion_vector.cc.
set(FLOE_UNITY_SKIP src/floe/sql/windows/window_functions.cc
    src/floe/manifest/deletion_vector.cc)

# floe_unity(<target>): replaces the target's .cc sources by unity groups. Sources group by
# folder, in path order, so one group holds files of one area.
function(floe_unity target)
  if(NOT FLOE_UNITY_BUILD)
    return()
  endif()
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  set(_grouped)
  set(_kept)
  foreach(_src ${_sources})
    get_filename_component(_abs "${_src}" ABSOLUTE BASE_DIR "${_dir}")
    get_source_file_property(_opts "${_abs}" COMPILE_OPTIONS)
    get_source_file_property(_defs "${_abs}" COMPILE_DEFINITIONS)
    file(RELATIVE_PATH _rel "${CMAKE_SOURCE_DIR}" "${_abs}")
    if(NOT _abs MATCHES "\\.cc$" OR _opts OR _defs OR _rel IN_LIST FLOE_UNITY_SKIP
       OR _rel MATCHES "^\\.\\.")
      list(APPEND _kept "${_src}")
    else()
      list(APPEND _grouped "${_rel}")
    endif()
  endforeach()
  list(SORT _grouped)

  set(_out_dir "${CMAKE_SOURCE_DIR}/build-unity/${target}")
  set(_units)
  set(_body "")
  set(_count 0)
  set(_folder "")
  foreach(_rel ${_grouped} "")
    get_filename_component(_this_folder "${_rel}" DIRECTORY)
    if(_count GREATER 0 AND (_rel STREQUAL "" OR _count EQUAL FLOE_UNITY_BATCH
                             OR NOT _this_folder STREQUAL _folder))
      # Named by its list, so trees that group alike share a file and trees that do not
      # (the fuzz build keeps some files apart) never rewrite each other's.
      string(MD5 _hash "${_body}")
      string(SUBSTRING "${_hash}" 0 12 _hash)
      set(_unit "${_out_dir}/unity_${_hash}.cc")
      if(NOT EXISTS "${_unit}")
        file(WRITE "${_unit}" "${_body}")
      endif()
      list(APPEND _units "${_unit}")
      set(_body "")
      set(_count 0)
    endif()
    if(NOT _rel STREQUAL "")
      string(APPEND _body "#include \"${_rel}\"\n")
      math(EXPR _count "${_count} + 1")
      set(_folder "${_this_folder}")
    endif()
  endforeach()

  set_target_properties(${target} PROPERTIES SOURCES "${_kept};${_units}")
  target_include_directories(${target} PRIVATE "${CMAKE_SOURCE_DIR}")
  # GCC takes a .cc file included by a group for a header, and warns where a class of it has a
  # member of a type in that file's anonymous namespace: right in a .cc file, and each
  # group is one translation unit.
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
endfunction()
