# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# Third-party dependencies. Everything comes from Debian 12 packages (see bootstrap.sh);
# a CUDA-enabled LibTorch can be given with -DCMAKE_PREFIX_PATH=/path/to/libtorch.

find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Torch REQUIRED)
find_package(faiss REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(SQLite3 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 CONFIG QUIET)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# fastText 0.9.2 (libfasttext-dev): .bin word vectors and skip-gram training on a corpus.
pkg_check_modules(FASTTEXT REQUIRED IMPORTED_TARGET fasttext)
# Built-in dataset fetchers (core/fetch): zip catalogues (libzip); npm tarballs and apt's
# compressed lists (.lz4, .xz, .gz) for the debian-descriptions corpus (libarchive).
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
find_package(LibArchive 3.4 REQUIRED)
# matio (libmatio-dev) reads MATLAB .mat files, v5 and v7.3 (HDF5): Kusner's WMD documents.
pkg_check_modules(MATIO REQUIRED IMPORTED_TARGET matio)
# FFTW 3 (libfftw3-dev, single precision: libfftw3f): the FFT-accelerated t-SNE gradient
# (core/layout).
pkg_check_modules(FFTW3F REQUIRED IMPORTED_TARGET fftw3f)

if(NOT TARGET CLI11::CLI11)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()

# LibTorch's own compile flags (the C++ ABI switch) must reach every TU that includes it.
# TORCH_CXX_FLAGS is a space-separated string; turn it into a list for an interface target.
separate_arguments(SETSCOPE_TORCH_FLAGS NATIVE_COMMAND "${TORCH_CXX_FLAGS}")
add_library(setscope_torch INTERFACE)
target_link_libraries(setscope_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(setscope_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_compile_options(setscope_torch INTERFACE ${SETSCOPE_TORCH_FLAGS})

# Distributed runs (core/dist) use c10d's ProcessGroupGloo, whose header includes Gloo's own.
# Debian: libgloo-dev beside libtorch-dev (Debian's libtorch_cpu links libgloo); a LibTorch that
# ships Gloo's headers in its include folder is preferred. torch_cpu's interface defines
# USE_C10D_GLOO when the LibTorch has the Gloo backend. SETSCOPE_GLOO: ON requires it; AUTO (the
# default) builds without distributed runs, and says so, when the headers are missing, the
# LibTorch has no Gloo backend, or (another LibTorch than Debian's with Gloo headers from
# elsewhere, e.g. PyTorch's wheel with the kit's libgloo-dev) ProcessGroupGloo.hpp does not
# compile against them; OFF builds without.
set(SETSCOPE_GLOO AUTO CACHE STRING "c10d Gloo for distributed runs: AUTO, ON or OFF")
set_property(CACHE SETSCOPE_GLOO PROPERTY STRINGS AUTO ON OFF)
set(SETSCOPE_HAS_GLOO OFF)
set(_setscope_gloo_why "configured with -DSETSCOPE_GLOO=OFF")
if(NOT SETSCOPE_GLOO STREQUAL "OFF")
  set(_setscope_gloo_why "")
  # The LibTorch's own folders first (PyTorch's wheel keeps its headers in its package), but not
  # the system's (Debian's LibTorch lives in /usr/include, where libgloo-dev is found anyway,
  # after CMAKE_PREFIX_PATH: the GPU kit's prefix).
  set(_setscope_torch_own_includes ${TORCH_INCLUDE_DIRS})
  list(REMOVE_ITEM _setscope_torch_own_includes ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES} /usr/include /usr/local/include)
  set(SETSCOPE_GLOO_INCLUDE_DIR SETSCOPE_GLOO_INCLUDE_DIR-NOTFOUND)
  if(_setscope_torch_own_includes)
    find_path(SETSCOPE_GLOO_INCLUDE_DIR gloo/config.h HINTS ${_setscope_torch_own_includes} NO_DEFAULT_PATH NO_CACHE)
  endif()
  set(_setscope_gloo_from_torch ON)
  if(NOT SETSCOPE_GLOO_INCLUDE_DIR)
    find_path(SETSCOPE_GLOO_INCLUDE_DIR gloo/config.h NO_CACHE)
    set(_setscope_gloo_from_torch OFF)
  endif()
  if(NOT SETSCOPE_GLOO_INCLUDE_DIR)
    set(_setscope_gloo_why "the Gloo headers (gloo/config.h) were not found; on Debian: apt-get install libgloo-dev")
  elseif(TARGET torch_cpu)
    get_target_property(_setscope_torch_defs torch_cpu INTERFACE_COMPILE_DEFINITIONS)
    if(NOT "${_setscope_torch_defs}" MATCHES "USE_C10D_GLOO")
      set(_setscope_gloo_why "this LibTorch (${TORCH_INSTALL_PREFIX}) was built without c10d's Gloo backend (torch_cpu does not define USE_C10D_GLOO)")
    endif()
  endif()
  if(NOT _setscope_gloo_why AND NOT _setscope_gloo_from_torch AND Torch_VERSION VERSION_GREATER_EQUAL 2)
    # Gloo's headers from another source than this LibTorch's: do they fit its c10d header?
    include(CheckCXXSourceCompiles)
    set(CMAKE_REQUIRED_INCLUDES ${TORCH_INCLUDE_DIRS} ${SETSCOPE_GLOO_INCLUDE_DIR})
    set(CMAKE_REQUIRED_DEFINITIONS -DUSE_C10D_GLOO ${SETSCOPE_TORCH_FLAGS})
    set(CMAKE_REQUIRED_QUIET ON)
    set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
    check_cxx_source_compiles("#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
      int setscopeGlooFits() { return sizeof(c10d::ProcessGroupGloo::Options) > 0; }" SETSCOPE_GLOO_HEADERS_FIT)
    unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
    unset(CMAKE_REQUIRED_INCLUDES)
    unset(CMAKE_REQUIRED_DEFINITIONS)
    if(NOT SETSCOPE_GLOO_HEADERS_FIT)
      set(_setscope_gloo_why "LibTorch ${Torch_VERSION}'s ProcessGroupGloo.hpp does not compile with the Gloo headers of ${SETSCOPE_GLOO_INCLUDE_DIR} (another Gloo version; CMakeFiles/CMakeConfigureLog.yaml has the errors)")
    endif()
  endif()
  if(_setscope_gloo_why)
    if(SETSCOPE_GLOO STREQUAL "ON")
      message(FATAL_ERROR "setscope: ${_setscope_gloo_why}; distributed training needs it (or -DSETSCOPE_GLOO=AUTO to build without)")
    endif()
    message(WARNING "setscope: building WITHOUT distributed runs (--nproc, torchrun, sharded OT): ${_setscope_gloo_why}")
  else()
    set(SETSCOPE_HAS_GLOO ON)
    target_include_directories(setscope_torch SYSTEM INTERFACE ${SETSCOPE_GLOO_INCLUDE_DIR})
  endif()
endif()
# NCCL: reported only (distributed runs reduce through Gloo on host copies; docs/DISTRIBUTED.md).
set(SETSCOPE_TORCH_HAS_NCCL OFF)
if(TARGET torch_cuda)
  get_target_property(_setscope_torch_cuda_defs torch_cuda INTERFACE_COMPILE_DEFINITIONS)
  if("${_setscope_torch_cuda_defs}" MATCHES "USE_C10D_NCCL")
    set(SETSCOPE_TORCH_HAS_NCCL ON)
  endif()
endif()

# CUDA: used exactly when the LibTorch we found was built with it.
if(TARGET torch_cuda OR CAFFE2_USE_CUDA)
  set(SETSCOPE_TORCH_HAS_CUDA ON)
else()
  set(SETSCOPE_TORCH_HAS_CUDA OFF)
endif()
message(STATUS "setscope: LibTorch ${Torch_VERSION} (CUDA: ${SETSCOPE_TORCH_HAS_CUDA}, c10d Gloo: ${SETSCOPE_HAS_GLOO}, "
               "NCCL in LibTorch: ${SETSCOPE_TORCH_HAS_NCCL}) from ${TORCH_INSTALL_PREFIX}")

if(SETSCOPE_BUILD_GUI)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets OpenGL OpenGLWidgets)
  find_package(OpenGL REQUIRED)
  # Dear ImGui 1.86 from Debian's libimgui-dev: a static archive that also holds the
  # OpenGL 3 renderer backend (with its own GL loader). We supply the Qt platform glue.
  find_path(IMGUI_INCLUDE_DIR imgui.h PATH_SUFFIXES imgui REQUIRED)
  find_library(IMGUI_LIBRARY NAMES imgui REQUIRED)
  add_library(setscope_imgui INTERFACE)
  target_include_directories(setscope_imgui SYSTEM INTERFACE ${IMGUI_INCLUDE_DIR} ${IMGUI_INCLUDE_DIR}/backends)
  # Debian builds libimgui.a against the system stb (stb_truetype, stb_rect_pack).
  find_library(STB_LIBRARY NAMES stb REQUIRED)
  target_link_libraries(setscope_imgui INTERFACE ${IMGUI_LIBRARY} ${STB_LIBRARY} ${CMAKE_DL_LIBS})
endif()
if(SETSCOPE_BUILD_TESTS OR SETSCOPE_BUILD_GUI)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Test)
  # Qt6::Test defines QT_TESTCASE_BUILDDIR and QT_TESTCASE_SOURCEDIR per test folder (for
  # QFINDTESTDATA, which setscope's tests do not use: they use SETSCOPE_SOURCE_DIR). Qt's
  # headers test those macros, so a different value per folder would make every test refuse
  # the shared precompiled header. Keep only QT_TESTLIB_LIB.
  get_target_property(_setscope_qttest_defs Qt6::Test INTERFACE_COMPILE_DEFINITIONS)
  list(FILTER _setscope_qttest_defs EXCLUDE REGEX "^QT_TESTCASE_(BUILD|SOURCE)DIR=")
  set_target_properties(Qt6::Test PROPERTIES INTERFACE_COMPILE_DEFINITIONS "${_setscope_qttest_defs}")
endif()
