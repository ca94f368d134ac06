# podwire_unit_test(<name> SOURCES <src...> LIBS <libs...> [LABELS <labels...>])
# One cmocka executable per unit; registered with ctest under its labels
# (default: unit).
function(podwire_unit_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CMOCKA cni_warnings)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}"
    ENVIRONMENT "PODWIRE_BIN=${PODWIRE_PLUGIN_OUTDIR};PODWIRE_TEST_BIN=${PODWIRE_TEST_PLUGIN_OUTDIR};PODWIRE_SRC=${CMAKE_SOURCE_DIR}")
endfunction()

# podwire_plugin(<name> SOURCES <main.c> LIBS <libs...>): a shipped CNI binary.
function(podwire_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${P_SOURCES})
  target_link_libraries(${name} PRIVATE ${P_LIBS} cni_warnings)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PODWIRE_PLUGIN_OUTDIR})
  target_link_options(${name} PRIVATE -Wl,--as-needed -Wl,-O1)
  if(PODWIRE_HOT_TEXT)
    set(script ${PROJECT_SOURCE_DIR}/cmake/hot-text.ld)
    target_link_options(${name} PRIVATE -Wl,-T,${script})
    set_target_properties(${name} PROPERTIES LINK_DEPENDS ${script})
  endif()
  install(TARGETS ${name} RUNTIME DESTINATION ${PODWIRE_CNI_BINDIR})
endfunction()
