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
    ENVIRONMENT "PODWIRE_LOCK_DIR=${CMAKE_BINARY_DIR}/test-locks;PODWIRE_BIN=${PODWIRE_PLUGIN_OUTDIR};PODWIRE_TEST_BIN=${PODWIRE_TEST_PLUGIN_OUTDIR};PODWIRE_SRC=${CMAKE_SOURCE_DIR}")
endfunction()

# podwire_plugin(<name> SOURCES <main.c> LIBS <libs...>): a shipped CNI binary,
# installed into PODWIRE_CNI_BINDIR (relative: under the prefix).
function(podwire_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${P_SOURCES})
  target_link_libraries(${name} PRIVATE ${P_LIBS} cni_warnings)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PODWIRE_PLUGIN_OUTDIR})
  install(TARGETS ${name} RUNTIME DESTINATION ${PODWIRE_CNI_BINDIR})
  set_property(GLOBAL APPEND PROPERTY PODWIRE_PLUGINS ${name})
endfunction()

# podwire_tool(<name> SOURCES <src...> LIBS <libs...> [MANPAGES <page.N...>]):
# a shipped command-line tool (cnitool, podwire-node, podwire-inspect). Built
# into build/bin next to the plugins, installed into CMAKE_INSTALL_BINDIR
# with its manual pages (section taken from the file name's extension).
# Every tool answers --help; packaging/ and its tests find tools and plugins
# through the PODWIRE_TOOLS / PODWIRE_PLUGINS global properties.
function(podwire_tool name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;MANPAGES" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} cni_warnings)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PODWIRE_PLUGIN_OUTDIR})
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Manual pages are installed gzip -9n compressed, as Debian wants them.
  foreach(page ${T_MANPAGES})
    get_filename_component(section ${page} LAST_EXT)
    string(SUBSTRING ${section} 1 -1 section)
    get_filename_component(base ${page} NAME)
    set(gz ${CMAKE_CURRENT_BINARY_DIR}/${base}.gz)
    add_custom_command(OUTPUT ${gz} COMMAND sh -c "gzip -9nc \"$0\" > \"$1\"" ${page} ${gz}
      DEPENDS ${page} VERBATIM)
    add_custom_target(${name}-man-${base} ALL DEPENDS ${gz})
    install(FILES ${gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY PODWIRE_TOOLS ${name})
endfunction()
