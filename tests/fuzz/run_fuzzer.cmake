# Runs one fuzzer for RUNS inputs, starting from its corpus (which it never
# modifies: new inputs go to WORK/new), with a fixed seed, and fails on any
# crash, sanitizer report, leak, or input that runs over 120 s (inputs take
# milliseconds; the margin absorbs a shared machine stalling). CTest runs it
# with 10^4 inputs; scripts/fuzz.sh runs 10^6 with the same options.
#   cmake -DFUZZER=path -DCORPUS=dir -DWORK=dir -DRUNS=N [-DSEED=S] -P run_fuzzer.cmake
if(NOT SEED)
  set(SEED 1)
endif()
if(NOT EXISTS "${FUZZER}")
  message(FATAL_ERROR "${FUZZER} was not built (the fuzz ExternalProject builds it with clang)")
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/new")
execute_process(
  COMMAND "${FUZZER}" "${WORK}/new" "${CORPUS}" -runs=${RUNS} -seed=${SEED} -timeout=120 -rss_limit_mb=4096
          -close_fd_mask=3 -print_final_stats=1 -artifact_prefix=${WORK}/
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  file(GLOB artifacts "${WORK}/crash-*" "${WORK}/leak-*" "${WORK}/timeout-*" "${WORK}/oom-*")
  message(FATAL_ERROR "${FUZZER} failed (exit ${result}); reproducer(s): ${artifacts}")
endif()
