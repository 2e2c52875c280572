# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# Fails unless the Qt Test binary TEST_BINARY has exactly the test functions LISTED
# (comma-separated): setscope_add_test(... REAL_DATA fn...) runs each listed function as
# its own CTest test, so a function added to the source but not to the list would never run.
execute_process(COMMAND ${TEST_BINARY} -functions OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST_BINARY} -functions failed (${rc}): ${err}")
endif()
string(REGEX REPLACE "\\(\\)" "" out "${out}")
string(REGEX REPLACE "\n" ";" have "${out}")
list(FILTER have EXCLUDE REGEX "^$")
list(SORT have)
string(REPLACE "," ";" want "${LISTED}")
list(SORT want)
if(NOT have STREQUAL want)
  message(FATAL_ERROR "${TEST_BINARY} has the test functions [${have}] but CMake lists [${want}]: "
                      "update its REAL_DATA list in setscope_add_test()")
endif()
