# The tuning commands of the kdecl tool on the host (no GPU): import/export of a
# tuning database, kdecl train, eval-selection, a model refused for another
# kernel set in select --explain, and clear errors for bad input.
# Run as: cmake -DKDECL=<tool> -DDATA=<tests/data> -DWORK_DIR=<dir> -P tuning_cli_test.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(kdecl_run expect_rc out_var)
  execute_process(COMMAND "${KDECL}" ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${expect_rc}")
    message(FATAL_ERROR "kdecl ${ARGN}: exit ${rc}, expected ${expect_rc}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()
function(expect_in text needle)
  string(FIND "${text}" "${needle}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "expected '${needle}' in:\n${text}")
  endif()
endfunction()

kdecl_run(0 out tune --db a.db --import "${DATA}/tuning_sm90_synthetic.jsonl")
expect_in("${out}" "imported 2760 new measurements")
kdecl_run(0 out tune --db a.db --import "${DATA}/tuning_sm90_synthetic.jsonl")
expect_in("${out}" "imported 0 new measurements")
kdecl_run(0 out tune --db a.db --export a.jsonl)
kdecl_run(0 out tune --db b.db --import a.jsonl)
kdecl_run(0 out tune --db b.db --export b.jsonl)
file(READ "${WORK_DIR}/a.jsonl" a)
file(READ "${WORK_DIR}/b.jsonl" b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "export -> import -> export changed the rows")
endif()

kdecl_run(0 out train --db a.db --arch sm_90 --kernel-set fa59938161680c05 --rounds 20 --out models/gemm_sm_90.model.json)
expect_in("${out}" "trained rank:ndcg (20 rounds) on 30 problems")
if(NOT EXISTS "${WORK_DIR}/models/gemm_sm_90.meta.json")
  message(FATAL_ERROR "kdecl train wrote no sidecar")
endif()
kdecl_run(2 out train --db a.db --objective reg:squarederror --out x.model.json)
expect_in("${out}" "is not a ranking objective")
kdecl_run(2 out train --db missing.db --out x.model.json)
expect_in("${out}" "'missing.db' does not exist")

# This build does not register the kernel set the model was trained for: refused, and said so. The
# model's kernel set covers the kernels of its trained signatures only (kernel_set_scope), so its
# fingerprint is not the databases' fa59938161680c05 but that set's bf16 rcr part.
set(ENV{KDECL_TUNING_MODEL} "${WORK_DIR}/models/gemm_sm_90.model.json")
execute_process(COMMAND "${KDECL}" select gemm --m 128 --n 4096 --k 4096 --dtype bf16 --device sm_90 --explain
                WORKING_DIRECTORY "${WORK_DIR}" OUTPUT_VARIABLE out ERROR_VARIABLE err)
expect_in("${out}${err}" "learned model ${WORK_DIR}/models/gemm_sm_90.model.json refused: it was trained for kernel set ")
expect_in("${out}${err}" "kernels of its 1 signatures); retrain it with kdecl train")
file(READ "${WORK_DIR}/models/gemm_sm_90.meta.json" meta)
expect_in("${meta}" "\"kernel_set_scope\": \"signatures\"")
unset(ENV{KDECL_TUNING_MODEL})

kdecl_run(0 out eval-selection --db a.jsonl --arch sm_90 --kernel-set fa59938161680c05 --folds 3 --rounds 10 --out eval)
expect_in("${out}" "| 3-fold by problem | learned model | 30 |")
expect_in("${out}" "| leave one model family out | analytical model |")
if(NOT EXISTS "${WORK_DIR}/eval/selection_sm_90.json")
  message(FATAL_ERROR "eval-selection wrote no JSON")
endif()

# Bad input: a clear message and exit code 2 (or 1 where the build has CUDA but the machine no GPU).
kdecl_run(2 out tune --db absent.db --export x.jsonl)
expect_in("${out}" "'absent.db' does not exist")
kdecl_run(2 out tune conv --problems x.csv)
expect_in("${out}" "operation 'conv' is not supported")
file(WRITE "${WORK_DIR}/p.csv" "m,n,k\n128,256,-4\n")
execute_process(COMMAND "${KDECL}" tune gemm --problems p.csv --db t.db WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "tune gemm on a bad problems file succeeded")
endif()
message(STATUS "tuning CLI: all checks passed")
