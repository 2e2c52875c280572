# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# setscope_target_defaults(target)            common settings for our own targets
# setscope_add_test(name SOURCES ... LABELS ... [LIBS ...] [TORCH] [GL] [REAL_DATA fn...] [TIMEOUT s]
#                   [COST c] [ENV ...])
#   adds the Qt Test executable tst_<name> and registers it with CTest under <name> with the
#   given labels. The test fails when the binary ran no test function of its own (a test
#   class written with plain `private:` runs nothing and would "pass"): Qt Test then reports
#   only initTestCase and cleanupTestCase, "Totals: 2 passed, 0 failed, 0 skipped".
#   GL: runs under xvfb-run (label gl); without xvfb-run the test is reported as skipped,
#   with the reason, instead of failing on a missing display.
#   REAL_DATA fn...: the binary holds only these test functions, each about real data that
#   may be absent (label real-data). Each runs as its own CTest test <name>.<fn>, so that its
#   QSKIP makes CTest report it as skipped, not passed, without hiding another's failure.
#   CUDA fn...: likewise one CTest test <name>.<fn> per function (label cuda), for the test
#   functions that need a GPU: each QSKIPs with the reason where no GPU is visible, and CTest
#   reports it as skipped. They run with NVIDIA_TF32_OVERRIDE=0 (cuBLAS and cuDNN in full float32,
#   the precision the CPU results are compared in) and a deterministic cuBLAS workspace.
#   `ctest -L cuda` runs them on a machine with a GPU (tools/gpu/build-and-run.sh).
#   COST: a relative run time, so that `ctest -j` starts the long tests first on a fresh
#   build (which has no timing history yet) instead of leaving them for the end.
#   Sanitizer builds (SetscopeSanitizers.cmake) add the sanitizers' runtime options to every
#   test's environment (for GL tests without LeakSanitizer, see there) and multiply TIMEOUT
#   by SETSCOPE_SANITIZER_TIMEOUT_MULTIPLIER.

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
  cmake_parse_arguments(T "TORCH;GL" "TIMEOUT;COST" "SOURCES;LABELS;LIBS;ENV;REAL_DATA;CUDA" ${ARGN})
  if(NOT T_SOURCES)
    message(FATAL_ERROR "setscope_add_test(${name}): SOURCES is required")
  endif()
  set(target tst_${name})
  add_executable(${target} ${T_SOURCES})
  setscope_target_defaults(${target})
  setscope_qt_defaults(${target})
  # moc for the test class, run by hand instead of AUTOMOC: AUTOMOC gives moc the target's
  # include paths, and moc then parses QtCore and everything else the test includes (~2 s of
  # CPU per test, ~120 s for the suite) to produce the very same output it produces without
  # them (a test's Q_OBJECT class uses no macro from a header). The test includes
  # "<source>.moc" as before.
  set_target_properties(${target} PROPERTIES AUTOMOC OFF)
  foreach(src ${T_SOURCES})
    if(src MATCHES "\\.cpp$")
      file(STRINGS ${src} has_qobject REGEX "Q_OBJECT" LIMIT_COUNT 1)
      if(has_qobject)
        get_filename_component(base ${src} NAME_WE)
        set(moc_out ${CMAKE_CURRENT_BINARY_DIR}/${target}_moc/${base}.moc)
        add_custom_command(OUTPUT ${moc_out}
          COMMAND Qt6::moc -DQT_NO_KEYWORDS --no-notes -o ${moc_out} ${CMAKE_CURRENT_SOURCE_DIR}/${src}
          DEPENDS ${src} Qt6::moc
          COMMENT "moc ${src}" VERBATIM)
        target_sources(${target} PRIVATE ${moc_out})
        set_source_files_properties(${moc_out} PROPERTIES HEADER_FILE_ONLY ON)
        target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/${target}_moc)
      endif()
    endif()
  endforeach()
  target_link_libraries(${target} PRIVATE Qt6::Test ${T_LIBS})
  # Precompiled headers (tests/CMakeLists.txt).
  if(T_TORCH)
    target_link_libraries(${target} PRIVATE setscope_sdk_model setscope_torch)
    target_precompile_headers(${target} REUSE_FROM setscope_core_torch)
  elseif("setscope_gui" IN_LIST T_LIBS AND TARGET setscope_gui_test_pch)
    target_precompile_headers(${target} REUSE_FROM setscope_gui_test_pch)
  elseif("setscope_core" IN_LIST T_LIBS OR "setscope_builtins" IN_LIST T_LIBS)
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
  # One time limit per test, CTest's: Qt Test's own watchdog (QTEST_FUNCTION_TIMEOUT, 5 min
  # by default) aborted a test function that a loaded machine made slower than 5 min although
  # the test's TIMEOUT allowed 15 (cli_fashion_mnist under `ctest -j4` with stress-ng).
  if(T_TIMEOUT)
    set(timeout ${T_TIMEOUT})
  else()
    set(timeout 300)
  endif()
  # Sanitizer builds (SetscopeSanitizers.cmake) run several times slower: their own multiplier,
  # so that a normal build keeps its limits.
  math(EXPR timeout "${timeout} * ${SETSCOPE_SANITIZER_TIMEOUT_MULTIPLIER}")
  list(APPEND env "QTEST_FUNCTION_TIMEOUT=${timeout}000")
  if(T_GL)
    list(APPEND env ${T_ENV} ${SETSCOPE_SANITIZER_GL_TEST_ENV})
  else()
    list(APPEND env ${T_ENV} ${SETSCOPE_SANITIZER_TEST_ENV})
  endif()

  set(labels ${T_LABELS})
  if(T_GL)
    list(APPEND labels gl)
  endif()
  set(tests ${name})
  set(per_function ${T_REAL_DATA})
  if(T_REAL_DATA)
    list(APPEND labels real-data)
  elseif(T_CUDA)
    list(APPEND labels cuda)
    set(per_function ${T_CUDA})
    list(APPEND env "NVIDIA_TF32_OVERRIDE=0" "CUBLAS_WORKSPACE_CONFIG=:4096:8")
  endif()
  if(per_function)
    set(tests "")
    foreach(fn ${per_function})
      add_test(NAME ${name}.${fn} COMMAND ${cmd} ${fn})
      # Qt Test prints "SKIP   : Class::function() reason" for a QSKIP.
      set_tests_properties(${name}.${fn} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP   : ")
      list(APPEND tests ${name}.${fn})
    endforeach()
    # The list must name every function of the binary, or one would silently never run.
    string(REPLACE ";" "," listed "${per_function}")
    add_test(NAME ${name}.listed
      COMMAND ${CMAKE_COMMAND} -DTEST_BINARY=$<TARGET_FILE:${target}> -DLISTED=${listed}
              -P ${PROJECT_SOURCE_DIR}/cmake/CheckListedFunctions.cmake)
    set(listed_env "QT_QPA_PLATFORM=offscreen" ${SETSCOPE_SANITIZER_TEST_ENV})
    set_tests_properties(${name}.listed PROPERTIES LABELS "${T_LABELS};meta" ENVIRONMENT "${listed_env}")
  else()
    add_test(NAME ${name} COMMAND ${cmd})
  endif()
  foreach(t ${tests})
    set_tests_properties(${t} PROPERTIES LABELS "${labels}" ENVIRONMENT "${env}"
                         FAIL_REGULAR_EXPRESSION "Totals: 2 passed, 0 failed, 0 skipped")
    if(skip_code)
      set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE ${skip_code})
    endif()
    if(T_COST)
      set_tests_properties(${t} PROPERTIES COST ${T_COST})
    endif()
    set_tests_properties(${t} PROPERTIES TIMEOUT ${timeout})
    if(T_GL)
      # One X server at a time keeps llvmpipe from fighting itself for the two cores.
      set_tests_properties(${t} PROPERTIES RESOURCE_LOCK xvfb)
    endif()
  endforeach()
endfunction()
