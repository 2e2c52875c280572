# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
setscope_add_test(ot_sinkhorn SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_Sinkhorn.cpp LABELS core LIBS setscope_core TORCH)
