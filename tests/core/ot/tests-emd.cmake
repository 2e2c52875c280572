# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
setscope_add_test(ot_emd SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_Emd.cpp LABELS core LIBS setscope_core)
# The same tests on the portable cost-matrix path (Eigen GEMM instead of the AVX2 kernel).
add_test(NAME ot_emd_portable COMMAND tst_ot_emd)
set_tests_properties(ot_emd_portable PROPERTIES LABELS core ENVIRONMENT "SETSCOPE_DISABLE_AVX2=1;QT_QPA_PLATFORM=offscreen")
