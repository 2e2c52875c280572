# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# setscope_target_defaults(target)            common settings for our own targets
# setscope_add_test(name SOURCES ... LABELS ... [LIBS ...] [TORCH] [GL] [REAL_DATA] [TIMEOUT s] [ENV ...])
#   adds the Qt Test executable tst_<name> and registers it with CTest under <name> with the
#   given labels. The test fails when the binary ran no test function of its own (a test
#   class written with plain `private:` runs nothing and would "pass"): Qt Test then reports
#   only initTestCase and cleanupTestCase, "Totals: 2 passed, 0 failed, 0 skipped".
#   GL: runs under xvfb-run (label gl); without xvfb-run the test is reported as skipped,
#   with the reason, instead of failing on a missing display.
#   REAL_DATA: the binary holds only tests of real data that may be absent (label
#   real-data); a QSKIP makes CTest report the test as skipped, not passed.
#   COST: a relative run time, so that `ctest -j` starts the long tests first on a fresh
#   build (which has no timing history yet) instead of leaving them for the end.

function(setscope_target_defaults target)
  target_link_libraries(${target} PRIVATE setscope_warnings)
  get_target_property(_type ${target} TYPE)
endfunction()

# Qt settings every Qt target gets (no `slots`/`signals`/`emit` macros: they clash with Torch).
function(setscope_qt_defaults target)
  target_compile_definitions(${target} PRIVATE QT_NO_KEYWORDS)
  set_target_properties(${target} PROPERTIES AUTOMOC ON)
endfunction()

find_program(SETSCOPE_XVFB_RUN xvfb-run)

function(setscope_add_test name)
  cmake_parse_arguments(T "TORCH;GL;REAL_DATA" "TIMEOUT;COST" "SOURCES;LABELS;LIBS;ENV" ${ARGN})
  if(NOT T_SOURCES)
    message(FATAL_ERROR "setscope_add_test(${name}): SOURCES is required")
  endif()
  set(target tst_${name})
  add_executable(${target} ${T_SOURCES})
  setscope_target_defaults(${target})
  setscope_qt_defaults(${target})
  target_link_libraries(${target} PRIVATE Qt6::Test ${T_LIBS})
  # Precompiled headers (tests/CMakeLists.txt). AUTOMOC's mocs_compilation.cpp of a test is
  # empty (the test includes its .moc), so it skips them: loading one costs 2 s (Qt) to
  # 11 s (Torch, 600 MB) of CPU, compiling the empty file nothing.
  set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp
                              PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  if(T_TORCH)
    target_link_libraries(${target} PRIVATE setscope_torch)
    target_precompile_headers(${target} REUSE_FROM setscope_core_torch)
  elseif("setscope_gui" IN_LIST T_LIBS AND TARGET setscope_gui_test_pch)
    target_precompile_headers(${target} REUSE_FROM setscope_gui_test_pch)
  elseif("setscope_core" IN_LIST T_LIBS OR "setscope_builtin" IN_LIST T_LIBS)
    target_precompile_headers(${target} REUSE_FROM setscope_test_pch)
  endif()
  target_compile_definitions(${target} PRIVATE
    SETSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SETSCOPE_BINARY_DIR="${PROJECT_BINARY_DIR}")

  set(cmd $<TARGET_FILE:${target}>)
  set(env "OMP_NUM_THREADS=2" "OMP_WAIT_POLICY=passive")
  set(skip_code "")
  if(T_GL)
    if(SETSCOPE_XVFB_RUN)
      set(cmd ${SETSCOPE_XVFB_RUN} -a -s "-screen 0 1280x1024x24" $<TARGET_FILE:${target}>)
    else()
      # No virtual X server: say so and report "skipped" (exit 77) rather than fail on xcb.
      set(cmd sh -c "echo 'SKIP: ${name} needs xvfb-run for its OpenGL window (apt-get install xvfb), not found at configure time'; exit 77")
      set(skip_code 77)
    endif()
    list(APPEND env "QT_QPA_PLATFORM=xcb" "LIBGL_ALWAYS_SOFTWARE=1")
  else()
    list(APPEND env "QT_QPA_PLATFORM=offscreen")
  endif()
  list(APPEND env ${T_ENV})

  add_test(NAME ${name} COMMAND ${cmd})
  set(labels ${T_LABELS})
  if(T_GL)
    list(APPEND labels gl)
  endif()
  if(T_REAL_DATA)
    list(APPEND labels real-data)
    # Qt Test prints "SKIP   : Class::function() reason" for a QSKIP.
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP   : ")
  endif()
  if(skip_code)
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE ${skip_code})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" ENVIRONMENT "${env}"
                       FAIL_REGULAR_EXPRESSION "Totals: 2 passed, 0 failed, 0 skipped")
  if(T_COST)
    set_tests_properties(${name} PROPERTIES COST ${T_COST})
  endif()
  if(T_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
  else()
    set_tests_properties(${name} PROPERTIES TIMEOUT 300)
  endif()
  if(T_GL)
    # One X server at a time keeps llvmpipe from fighting itself for the two cores.
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK xvfb)
  endif()

endfunction()
