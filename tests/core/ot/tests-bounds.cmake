# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
setscope_add_test(ot_chamfer SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_Chamfer.cpp LABELS core LIBS setscope_core)
setscope_add_test(ot_bounds SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_Bounds.cpp LABELS core LIBS setscope_core)
setscope_add_test(ot_emdknn SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_EmdKnn.cpp LABELS core LIBS setscope_core)
