# Helpers of the `kdecl bench` CLI tests (bench_cli_test.cmake, bench_ops_cli_test.cmake):
#   kdecl(EXPECTED_RC OUT_VAR ARGS...)  runs ${KDECL} ARGS, fails unless it exits EXPECTED_RC; OUT_VAR gets stdout+stderr
#   expect(TEXT REGEX)                  fails unless TEXT matches REGEX
function(kdecl expected_rc out_var)
  execute_process(COMMAND "${KDECL}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "expected exit status ${expected_rc}, got ${rc}: kdecl ${ARGN}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect text pattern)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "expected '${pattern}' in:\n${text}")
  endif()
endfunction()
