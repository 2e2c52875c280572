# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# Compiler settings shared by every setscope target.

if(SETSCOPE_USE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(SETSCOPE_CCACHE ccache)
  if(SETSCOPE_CCACHE)
    # Without this sloppiness ccache refuses every translation unit that uses a precompiled
    # header ("could not use precompiled header": 1 178 of 1 526 calls here), i.e. nearly all
    # of ours. base_dir makes the cache shared by checkouts in different folders.
    set(_setscope_ccache ${CMAKE_COMMAND} -E env
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${SETSCOPE_CCACHE})
    set(CMAKE_C_COMPILER_LAUNCHER ${_setscope_ccache})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_setscope_ccache})
    message(STATUS "setscope: using ccache (${SETSCOPE_CCACHE})")
  endif()
endif()

# Warnings for our own code only (applied per target by setscope_target_defaults).
add_library(setscope_warnings INTERFACE)
target_compile_options(setscope_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wno-unused-parameter -Wno-restrict>)

# GNU gold links a test executable (libsetscope_core.a, FAISS's static archive, LibTorch)
# in 0.3 s of CPU where the default ld.bfd takes 1.7 s; the suite has ~60 executables.
option(SETSCOPE_USE_GOLD "Link with GNU gold when the toolchain accepts -fuse-ld=gold" ON)
if(SETSCOPE_USE_GOLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=gold" SETSCOPE_HAS_GOLD)
  if(SETSCOPE_HAS_GOLD)
    add_link_options(-fuse-ld=gold)
  endif()
endif()
