# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
setscope_add_test(ot_pairwise SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_PairwiseMatrix.cpp LABELS core
  LIBS setscope_core TIMEOUT 180)

# The child process of the kill test: computes an EMD matrix until it is killed.
add_executable(tst_ot_pairwise_child ${CMAKE_CURRENT_LIST_DIR}/PairwiseChild.cpp)
setscope_target_defaults(tst_ot_pairwise_child)
target_link_libraries(tst_ot_pairwise_child PRIVATE setscope_core)
add_dependencies(tst_ot_pairwise tst_ot_pairwise_child)
target_compile_definitions(tst_ot_pairwise PRIVATE PAIRWISE_CHILD="$<TARGET_FILE:tst_ot_pairwise_child>")
