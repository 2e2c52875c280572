# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# Fails when a Qt Test binary lists no test functions (e.g. a class that used `private:`
# instead of `private Q_SLOTS:` compiles, runs nothing and reports success).
execute_process(COMMAND ${TEST_BINARY} -functions
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
string(STRIP "${out}" out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST_BINARY} -functions failed (${rc}): ${err}")
endif()
if(out STREQUAL "")
  message(FATAL_ERROR "${TEST_BINARY} lists no test functions: is the class using `private Q_SLOTS:`?")
endif()
string(REGEX MATCHALL "\n" lines "${out}\n")
list(LENGTH lines n)
message(STATUS "${TEST_BINARY}: ${n} test functions")
