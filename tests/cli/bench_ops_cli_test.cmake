# `kdecl bench conv` and `kdecl bench fmha` end to end on the host backend (its timings only
# exercise the benches; there is no cuDNN there, and every record says so):
#  - a budget too small for any problem stops before the first (exit status 75), --resume
#    measures the rest, one JSON line each, and a third call finds nothing left;
#  - results on disk are never overwritten without --resume or --overwrite;
#  - the markdown report has its per-group summary, the JSON holds every record.
#   cmake -DKDECL=path/to/kdecl -DLAYERS=tests/cli/conv_layers.csv -DWORK_DIR=... -P bench_ops_cli_test.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

include("${CMAKE_CURRENT_LIST_DIR}/bench_test_helpers.cmake")

# Convolution: the four odd layers in two directions (8 problems), in pieces.
set(conv_args bench conv --problems "${LAYERS}" --directions fwd,bwd_weight --dtype fp32 --device host
    --iters 3 --warmup 1 --top 1 --out "${WORK_DIR}/conv")
kdecl(75 out ${conv_args} --time-budget 0.001)
expect("${out}" "stopped by the time budget")
kdecl(0 out ${conv_args} --resume)
file(STRINGS "${WORK_DIR}/conv/conv_fp32_nhwgc.jsonl" lines)
list(LENGTH lines n)
if(NOT n EQUAL 8)
  message(FATAL_ERROR "expected 8 JSON lines (one per problem), got ${n}")
endif()
expect("${lines}" "\"cudnn_missing\":\"no cuDNN on the host backend\"")
expect("${lines}" "\"dispatcher\":\\{[^}]*\"kernel\":\"conv_")
expect("${lines}" "\"label\":\"test grouped\"")
expect("${out}" "\\| fwd grouped \\| 1 \\| 0 \\|")
expect("${out}" "\\| bwd_weight depthwise \\| 1 \\| 0 \\|")
kdecl(0 out ${conv_args} --resume)
expect("${out}" "0 of 8 problems to measure")
kdecl(2 out ${conv_args})
expect("${out}" "already holds 8 result\\(s\\): pass --resume")
file(READ "${WORK_DIR}/conv/conv_fp32_nhwgc.md" md)
expect("${md}" "## Per problem")
file(READ "${WORK_DIR}/conv/conv_fp32_nhwgc.json" doc)
expect("${doc}" "\"complete\": true")
kdecl(0 out ${conv_args} --resume --dry-run)
expect("${out}" "0 of 8 problems to measure")
# bench report summarises them again (e.g. the pieces of several calls).
kdecl(0 out bench report "${WORK_DIR}/conv/conv_fp32_nhwgc.jsonl" --out "${WORK_DIR}/report")
expect("${out}" "\\| fwd grouped \\| 1 \\| 0 \\|")
if(NOT EXISTS "${WORK_DIR}/report/conv_fp32_nhwgc.md")
  message(FATAL_ERROR "bench report wrote no ${WORK_DIR}/report/conv_fp32_nhwgc.md")
endif()

# Attention: one causal GQA problem with sinks, and a varlen batch; both dtypes.
kdecl(0 out bench fmha --b 1 --hq 4 --hkv 2 --sq 33 --d 64 --mask causal --sinks --dtype bf16,fp16 --device host
      --iters 3 --warmup 1 --top 1 --out "${WORK_DIR}/fmha")
file(STRINGS "${WORK_DIR}/fmha/fmha_bf16_fp16.jsonl" lines)
list(LENGTH lines n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "expected 2 JSON lines (bf16 and fp16), got ${n}")
endif()
expect("${lines}" "\"key\":\"bf16 b1 sq33 skv33 hq4 hkv2 d64 top_left sinks\"")
expect("${lines}" "\"dispatcher\":\\{[^}]*\"kernel\":\"fmha_fwd_bf16")
expect("${out}" "\\| bf16 d64 causal gqa sinks \\| 1 \\| 0 \\|")
kdecl(0 out bench fmha --varlen 17:40,0:9,33:0 --hq 8 --hkv 2 --d 80 --mask bottom_right --device host
      --iters 3 --warmup 1 --top 0 --out "${WORK_DIR}/fmha" --label varlen)
expect("${out}" "\\| bf16 d80 causal gqa varlen \\| 1 \\| 0 \\|")
message(STATUS "bench conv/fmha CLI: pieces, resume, overwrite guard and reports behave on the host")
