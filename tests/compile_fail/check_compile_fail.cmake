# Compiles one negative test and passes iff compilation FAILS and the compiler
# output matches the regex on the source's "// expect-error: <regex>" line.
#   cmake -DCOMPILER=<c++> -DSOURCE=<file.cpp> -DINCLUDE_DIRS="a|b|c" [-DFLAGS="x|y"] -P check_compile_fail.cmake
cmake_minimum_required(VERSION 3.20)

file(STRINGS "${SOURCE}" expect_line REGEX "^// expect-error: ")
if(NOT expect_line)
  message(FATAL_ERROR "${SOURCE}: no '// expect-error: <regex>' line")
endif()
string(REGEX REPLACE "^// expect-error: " "" expected "${expect_line}")

set(args -std=c++20 -fsyntax-only)
string(REPLACE "|" ";" include_list "${INCLUDE_DIRS}")
foreach(dir IN LISTS include_list)
  list(APPEND args "-I${dir}")
endforeach()
if(FLAGS)
  string(REPLACE "|" ";" flag_list "${FLAGS}")
  list(APPEND args ${flag_list})
endif()

execute_process(COMMAND "${COMPILER}" ${args} "${SOURCE}"
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(output "${out}${err}")

if(result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not (expected: ${expected})")
endif()
string(REGEX MATCH "${expected}" found "${output}")
if(NOT found)
  message(FATAL_ERROR "${SOURCE} failed to compile, but the output does not match '${expected}':\n${output}")
endif()
message(STATUS "${SOURCE}: rejected as expected (${expected})")
