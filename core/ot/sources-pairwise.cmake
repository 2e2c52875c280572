# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
target_sources(setscope_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/PairwiseMatrix.cpp)
