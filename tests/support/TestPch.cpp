// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Intentionally empty: the translation unit of the precompiled-header targets that the test
// executables reuse (tests/CMakeLists.txt). Its object file is never linked.
