# `kdecl bench` without a GPU: what a long sweep relies on before it reaches one.
#   cmake -DKDECL=path/to/kdecl -DSHAPES=benchmarks/shapes -DWORK_DIR=... -P bench_cli_test.cmake
#  - --resume skips the problems a JSON-lines file already holds (and drops a line cut short);
#  - results already on disk are never overwritten without --resume or --overwrite;
#  - `bench report` summarises JSON lines into markdown (geometric mean, worst tenth).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

include("${CMAKE_CURRENT_LIST_DIR}/bench_test_helpers.cmake")

# The first problem of gemm_llm_decoders.csv is measured already; the second's line was cut short by a kill.
set(jsonl "${WORK_DIR}/piece.jsonl")
file(WRITE "${jsonl}" "{\"key\": \"bf16 rcr 1x12288x4096\", \"m\": 1, \"n\": 12288, \"k\": 4096, \"batch\": 1, \"dtype\": \"bf16\", \"layout\": \"rcr\", \"error\": \"test\"}\n{\"key\": \"bf16 rcr 1x40")
kdecl(0 out bench gemm --problems "${SHAPES}/gemm_llm_decoders.csv" --limit 3 --jsonl "${jsonl}" --resume --dry-run --device host)
expect("${out}" "2 of 3 problems to measure")
if(out MATCHES "1x12288x4096")
  message(FATAL_ERROR "--resume listed a problem the file holds:\n${out}")
endif()
kdecl(0 out bench gemm --problems "${SHAPES}/gemm_llm_decoders.csv" --limit 3 --jsonl "${jsonl}" --dry-run --device host)
expect("${out}" "3 of 3 problems to measure")

# Results on disk: a fresh run must be told what to do with them.
kdecl(2 out bench gemm --problems "${SHAPES}/gemm_llm_decoders.csv" --limit 3 --jsonl "${jsonl}")
expect("${out}" "already holds 1 result\\(s\\): pass --resume")
kdecl(2 out bench gemm --problems "${SHAPES}/gemm_llm_decoders.csv" --filter "model=NoSuchModel" --dry-run)
expect("${out}" "keeps no row")

# bench report: two measured shapes and one refusal.
set(r1 "{\"key\": \"bf16 rcr 16x4096x4096\", \"m\": 16, \"n\": 4096, \"k\": 4096, \"batch\": 1, \"dtype\": \"bf16\", \"layout\": \"rcr\", \"gpu\": \"Test GPU\", \"date\": \"2026-01-01\", \"commit\": \"abc\", \"uses\": [{\"model\": \"Llama-3-8B\", \"layer\": \"o_proj\"}], \"dispatcher\": {\"ms\": 0.02, \"tflops\": 26.8, \"kernel\": \"k1\"}, \"best_instance\": {\"ms\": 0.02, \"tflops\": 26.8, \"kernel\": \"k1\"}, \"cublas\": {\"ms\": 0.01, \"tflops\": 53.6}}")
set(r2 "{\"key\": \"bf16 rcr 64x4096x4096\", \"m\": 64, \"n\": 4096, \"k\": 4096, \"batch\": 1, \"dtype\": \"bf16\", \"layout\": \"rcr\", \"gpu\": \"Test GPU\", \"date\": \"2026-01-01\", \"commit\": \"abc\", \"dispatcher\": {\"ms\": 0.02, \"tflops\": 107, \"kernel\": \"k1\"}, \"best_instance\": {\"ms\": 0.02, \"tflops\": 107, \"kernel\": \"k1\"}, \"cublas\": {\"ms\": 0.04, \"tflops\": 53.6}}")
set(r3 "{\"key\": \"bf16 rcr 1x50257x768\", \"m\": 1, \"n\": 50257, \"k\": 768, \"batch\": 1, \"dtype\": \"bf16\", \"layout\": \"rcr\", \"error\": \"no registered kernel can run this problem\"}")
file(WRITE "${WORK_DIR}/done.jsonl" "${r1}\n${r2}\n${r3}\n")
kdecl(0 out bench report "${WORK_DIR}/done.jsonl" --out "${WORK_DIR}/report")
expect("${out}" "\\| bf16 rcr \\| 3 \\| 2 \\| 1 \\| 0 \\| \\*\\*1.000\\*\\*")
expect("${out}" "Test GPU")
expect("${out}" "Llama-3-8B o_proj")
if(NOT EXISTS "${WORK_DIR}/report/done.md")
  message(FATAL_ERROR "bench report wrote no ${WORK_DIR}/report/done.md")
endif()
# End to end on the host backend (its timings only exercise the bench): a budget too small for
# any problem stops before the first (exit status 75), --resume measures the rest, one line each,
# and a third call finds nothing left to do.
set(host_args bench gemm --problems "${SHAPES}/gemm_encoders_vision.csv" --filter "model=GPT-2,m=1,n<=3072"
    --device host --iters 3 --warmup 1 --top 1 --out "${WORK_DIR}/host")
kdecl(75 out ${host_args} --time-budget 0.001)
expect("${out}" "stopped by the time budget")
kdecl(0 out ${host_args} --resume)
file(STRINGS "${WORK_DIR}/host/sweep_bf16_rcr.jsonl" lines)
list(LENGTH lines n)
if(NOT n EQUAL 4)
  message(FATAL_ERROR "expected 4 JSON lines (one per problem), got ${n}")
endif()
expect("${lines}" "\"uses\":\\[\\{\"file\":\"gemm_encoders_vision\",\"layer\":\"attn.c_attn")
expect("${out}" "\\| bf16 rcr \\| 4 \\| 4 \\| 0 \\| 0 \\|")
kdecl(0 out ${host_args} --resume)
expect("${out}" "0 of 4 problems to measure")
message(STATUS "bench CLI: resume, overwrite guard, report and a host run in pieces behave")

# A block-scaled fp8 GEMM timed on the host backend: its operand sets carry the scales.
set(scaled "${WORK_DIR}/scaled.jsonl")
kdecl(0 out bench gemm --sizes 130 --dtype fp8 --block-scaled --device host --warmup 1 --iters 3 --top 1
      --jsonl "${scaled}" --out "${WORK_DIR}/scaled")
file(READ "${scaled}" scaled_line)
expect("${scaled_line}" "blockscaled_host_blocked.*ms")
