# The tuning commands of the kdecl tool on the host (no GPU): import/export of a
# tuning database, kdecl train, eval-selection (GEMM and convolution), a model
# refused for another kernel set in select --explain, and clear errors for bad input.
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
expect_in("${out}" "trained rank:ndcg (20 rounds) on 30 gemm problems")
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
kdecl_run(2 out tune attention --problems x.csv)
expect_in("${out}" "operation 'attention' is not supported")
kdecl_run(2 out tune fmha --problems "${SHAPES}/fmha_llm_prefill.csv" --dtype bf16,fp16 --db t.db)
expect_in("${out}" "tune needs")
kdecl_run(2 out tune fmha --problems "${SHAPES}/fmha_llm_prefill.csv" --dtype bf16,fp33 --db t.db)
expect_in("${out}" "'fp33' is not a known dtype")
kdecl_run(2 out tune conv --problems "${SHAPES}/conv_resnet50.csv" --directions fwd,sideways)
expect_in("${out}" "'sideways' is not fwd, bwd_data or bwd_weight")
kdecl_run(2 out tune conv --problems "${SHAPES}/conv_resnet50.csv" --directions all --batches 1 32 --db t.db)
expect_in("${out}" "tune needs")  # the CUDA backend (host builds) or a CUDA GPU (this machine has none)
kdecl_run(2 out train --op conv --db a.db --out x.model.json)
expect_in("${out}" "the databases hold no conv measurement of sm_90")
kdecl_run(2 out train --op attention --db a.db --out x.model.json)
expect_in("${out}" "--op 'attention' is not gemm, conv or fmha")
kdecl_run(2 out train --op fmha --db a.db --out x.model.json)
expect_in("${out}" "the databases hold no fmha measurement of sm_90")

# Convolution: a synthetic database (3 sm_90 kernels on 30 forward problems of three
# networks; kernel A is fastest on large problems, C on small ones), trained, evaluated
# by family, and its model refused by this build's registry with the reason.
set(kernels
    conv_fwd_2d_bf16_nhwgc_cp_async_cshuffle_intrawave_128x128x32_2x2x1_64x64x16_s3_v8x8x8_sm_90
    conv_fwd_2d_bf16_nhwgc_cp_async_cshuffle_intrawave_128x64x32_2x2x1_64x32x16_s3_v8x8x8_sm_90
    conv_fwd_2d_bf16_nhwgc_cp_async_cshuffle_intrawave_64x64x32_2x2x1_32x32x16_s3_v8x8x8_sm_90)
string(JOIN "\", \"" names ${kernels})
set(rows "{\"kind\": \"kernel_set\", \"fingerprint\": \"c0c0c0c0c0c0c0c0\", \"arch\": \"sm_90\", \"kernels\": [\"${names}\"]}\n")
set(networks resnet50 mobilenet_v2 convnext_tiny)
foreach(i RANGE 29)
  math(EXPR n "1 << (${i} % 6)")
  math(EXPR c "64 << (${i} / 6)")
  math(EXPR hw "7 << (${i} % 4)")
  math(EXPR net "${i} % 3")
  list(GET networks ${net} network)
  set(key "conv/fwd/bf16-bf16-bf16-fp32/nhwgc/n${n}c${c}k${c}g1/i${hw}x${hw}/f3x3/s1x1/d1x1/p1x1_1x1/packed")
  string(APPEND rows "{\"kind\": \"source\", \"problem_key\": \"${key}\", \"model\": \"${network}\", \"layer\": \"l${i}\", \"source\": \"synthetic\"}\n")
  math(EXPR work "${n} * ${c} * ${hw} * ${hw} / 64")
  set(j 0)
  foreach(kernel IN LISTS kernels)
    # A: 2 us per unit of work plus 900 us; B: 3 + 300; C: 5 + 0 (integers, in us).
    if(j EQUAL 0)
      math(EXPR us "2 * ${work} / 1000 + 900")
    elseif(j EQUAL 1)
      math(EXPR us "3 * ${work} / 1000 + 300")
    else()
      math(EXPR us "5 * ${work} / 1000")
    endif()
    math(EXPR j "${j} + 1")
    string(APPEND rows "{\"kind\": \"measurement\", \"device_name\": \"synthetic (not measured)\", \"arch\": \"sm_90\", \"op\": \"conv\", \"problem_key\": \"${key}\", \"kernel\": \"${kernel}\", \"kernel_set\": \"c0c0c0c0c0c0c0c0\", \"median_ms\": ${us}.5, \"samples\": 20}\n")
  endforeach()
endforeach()
file(WRITE "${WORK_DIR}/conv.jsonl" "${rows}")
kdecl_run(0 out tune --db c.db --import conv.jsonl)
expect_in("${out}" "imported 90 new measurements")
kdecl_run(0 out train --op conv --db c.db --arch sm_90 --kernel-set c0c0c0c0c0c0c0c0 --rounds 10
          --out models/conv_sm_90.model.json)
expect_in("${out}" "trained rank:ndcg (10 rounds) on 30 conv problems")
file(READ "${WORK_DIR}/models/conv_sm_90.meta.json" meta)
expect_in("${meta}" "\"op\": \"conv\"")
expect_in("${meta}" "\"conv/fwd/bf16-bf16-bf16-fp32/nhwgc\"")
kdecl_run(0 out eval-selection --op conv --db c.db --arch sm_90 --kernel-set c0c0c0c0c0c0c0c0 --folds 3 --rounds 10
          --out eval)
expect_in("${out}" "# Convolution kernel selection on problems held out from training (sm_90)")
expect_in("${out}" "| 3-fold by problem | learned model | 30 |")
expect_in("${out}" "| leave one model family out | analytical model | 30 |")
if(NOT EXISTS "${WORK_DIR}/eval/selection_conv_sm_90.json")
  message(FATAL_ERROR "eval-selection --op conv wrote no JSON")
endif()
set(ENV{KDECL_TUNING_CONV_MODEL} "${WORK_DIR}/models/conv_sm_90.model.json")
execute_process(COMMAND "${KDECL}" select conv --n 8 --c 64 --k 64 --hw 56,56 --filter 3 --pad 1 --dtype bf16
                        --device sm_90 --explain
                WORKING_DIRECTORY "${WORK_DIR}" OUTPUT_VARIABLE out ERROR_VARIABLE err)
expect_in("${out}${err}" "learned model ${WORK_DIR}/models/conv_sm_90.model.json refused: it was trained for kernel set ")
unset(ENV{KDECL_TUNING_CONV_MODEL})
file(WRITE "${WORK_DIR}/p.csv" "m,n,k\n128,256,-4\n")
execute_process(COMMAND "${KDECL}" tune gemm --problems p.csv --db t.db WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "tune gemm on a bad problems file succeeded")
endif()
message(STATUS "tuning CLI: all checks passed")
