# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# Sanitizer builds (docs/RELIABILITY.md "Sanitizers"; ./bootstrap.sh asan|tsan).
#   -DSETSCOPE_SANITIZE="address;undefined"   ASan + UBSan, every UBSan report fatal
#   -DSETSCOPE_SANITIZE=thread                 TSan, with cmake/sanitizers/tsan.supp
# Every target of the project is compiled and linked with the flags (they are set before the
# first target is created). Debian's LibTorch, Qt, OpenBLAS, FAISS, libgomp are not
# instrumented: ASan and UBSan see our code only, TSan sees our code and the
# synchronisation the libraries do through instrumented interceptors (pthread, not libgomp's
# futexes, which is what the suppressions are about).
# setscope_add_test() gives each test the runtime options below and multiplies its time
# limit by SETSCOPE_SANITIZER_TIMEOUT_FACTOR; a normal build is not affected.

set(SETSCOPE_SANITIZE "" CACHE STRING
    "Sanitizers to build with: empty (none), \"address;undefined\" (or one of them) or \"thread\"")
set(SETSCOPE_SANITIZER_TIMEOUT_FACTOR "" CACHE STRING
    "Multiplier of every test's time limit in a sanitizer build (empty: 3 for ASan/UBSan, 5 for TSan)")

set(SETSCOPE_SANITIZER_TEST_ENV "")
set(SETSCOPE_SANITIZER_GL_TEST_ENV "")
set(SETSCOPE_SANITIZER_TIMEOUT_MULTIPLIER 1)

if(SETSCOPE_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "SETSCOPE_SANITIZE needs GCC or Clang, not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  foreach(_san ${SETSCOPE_SANITIZE})
    if(NOT _san MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "SETSCOPE_SANITIZE: unknown sanitizer '${_san}' (address, undefined, thread)")
    endif()
  endforeach()
  if("thread" IN_LIST SETSCOPE_SANITIZE AND ("address" IN_LIST SETSCOPE_SANITIZE OR "undefined" IN_LIST SETSCOPE_SANITIZE))
    message(FATAL_ERROR "SETSCOPE_SANITIZE: thread cannot be combined with address or undefined")
  endif()
  list(JOIN SETSCOPE_SANITIZE "," _setscope_san)
  # -g1: line tables for the reports' stack traces, without full debug info (LibTorch's headers
  # would make every object several times larger). Frame pointers for the fast unwinder.
  add_compile_options(-fsanitize=${_setscope_san} -fno-omit-frame-pointer -g1)
  add_link_options(-fsanitize=${_setscope_san})
  if("undefined" IN_LIST SETSCOPE_SANITIZE)
    # A UBSan report ends the test (non-zero exit) instead of printing and going on.
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  if("address" IN_LIST SETSCOPE_SANITIZE OR "undefined" IN_LIST SETSCOPE_SANITIZE)
    # -O1 instead of the build type's -O3 (a later -O wins): with ASan + UBSan, -O3's inlining
    # multiplies the instrumented code, and GCC 12 took 27.9 s of CPU for
    # core/train/PartitionSampler.cpp at -O3 against 14.4 s at -O1 (the -O1 the ASan
    # documentation recommends). TSan's build keeps -O3 (its unity objects cost a third of
    # ASan + UBSan's).
    add_compile_options(-O1)
  endif()

  set(_symbolizer "")
  find_program(SETSCOPE_LLVM_SYMBOLIZER NAMES llvm-symbolizer llvm-symbolizer-14)
  if(SETSCOPE_LLVM_SYMBOLIZER)
    set(_symbolizer ":external_symbolizer_path=${SETSCOPE_LLVM_SYMBOLIZER}")
  endif()
  if("thread" IN_LIST SETSCOPE_SANITIZE)
    set(_factor 5)
    # halt_on_error: the first race fails the test; second_deadlock_stack: both stacks of a
    # lock-order inversion; history_size=7 (the most): the earlier access's stack is kept long
    # enough to show the OpenMP region ("._omp_fn.") that the suppressions recognise (with the
    # default, t-SNE's reports said "failed to restore the stack"). die_after_fork=0: setscope
    # never calls fork(), but after the first child process started through posix_spawn
    # (core/fetch/Subprocess.cpp) or QProcess (tests), GCC 12's TSan runtime held the test
    # process itself for "a child after a multi-threaded fork" (the message names the test's
    # own pid) and killed it at its next pthread_create ("starting new threads after
    # multi-threaded fork is not supported"; fetch_fetch, ot_pairwise). With the option the
    # runtime only logs that and goes on checking: no fork happened, so its state is whole.
    list(APPEND SETSCOPE_SANITIZER_TEST_ENV
      "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:history_size=7:die_after_fork=0:suppressions=${PROJECT_SOURCE_DIR}/cmake/sanitizers/tsan.supp${_symbolizer}")
    # OpenMP teams of one thread (overrides setscope_add_test's OMP_NUM_THREADS=2): TSan does
    # not see libgomp's futex barriers, so every access of a team's worker was a report that
    # the "._omp_fn." suppression then dropped, and the report machinery made layout_tsne
    # (2.6 s in the normal build) run over 25 min under TSan before its limit. A one-thread
    # team gives TSan nothing to check inside a region that it could check. Tests that set
    # a team size themselves (FastTsne's `threads`) still start workers, and the suppression
    # stays for them. The job threads (std::thread), mailboxes, FAISS and LibTorch are as before.
    list(APPEND SETSCOPE_SANITIZER_TEST_ENV "OMP_NUM_THREADS=1")
  else()
    set(_factor 3)
    if("address" IN_LIST SETSCOPE_SANITIZE)
      list(APPEND SETSCOPE_SANITIZER_TEST_ENV
        "ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:check_initialization_order=1:strict_init_order=1${_symbolizer}")
    endif()
    if("undefined" IN_LIST SETSCOPE_SANITIZE)
      list(APPEND SETSCOPE_SANITIZER_TEST_ENV "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1${_symbolizer}")
    endif()
  endif()
  if(SETSCOPE_SANITIZER_TIMEOUT_FACTOR)
    set(_factor ${SETSCOPE_SANITIZER_TIMEOUT_FACTOR})
  endif()
  set(SETSCOPE_SANITIZER_TIMEOUT_MULTIPLIER ${_factor})
  # The same factor for the waits inside tests (tests/support/TimeFactor.h).
  list(APPEND SETSCOPE_SANITIZER_TEST_ENV "SETSCOPE_TEST_TIME_FACTOR=${_factor}")
  # The tests with an OpenGL window (label gl, under xvfb-run) run without LeakSanitizer: at
  # exit it reported 1-2 KB in libdbus-1 and libodbcinst (loaded by Qt's plugin loader) and in
  # code that belongs to no module, the shaders Mesa's llvmpipe compiles at run time, which no
  # suppression can name (a suppression matches a module or function name). AddressSanitizer
  # and UBSan still check everything these tests run; every other test keeps leak detection.
  string(REPLACE "detect_leaks=1" "detect_leaks=0" SETSCOPE_SANITIZER_GL_TEST_ENV "${SETSCOPE_SANITIZER_TEST_ENV}")
  message(STATUS "setscope: sanitizers ${_setscope_san}, test time limits x${_factor}")
endif()
