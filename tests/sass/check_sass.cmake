# cmake -DCUOBJDUMP=... -DOBJECT=... -DINSTRUCTION=HGMMA -P check_sass.cmake
# Passes when the object's SASS contains the instruction (e.g. HGMMA: the sm_90a
# kernels really use wgmma, not a slower path).
execute_process(COMMAND "${CUOBJDUMP}" -sass "${OBJECT}" OUTPUT_VARIABLE sass ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cuobjdump failed on ${OBJECT}: ${err}")
endif()
string(REGEX MATCHALL "[ \t]${INSTRUCTION}[.A-Z0-9]*" hits "${sass}")
list(LENGTH hits n)
if(n EQUAL 0)
  message(FATAL_ERROR "no ${INSTRUCTION} instruction in the SASS of ${OBJECT}")
endif()
message(STATUS "${n} ${INSTRUCTION} instructions in ${OBJECT}")
