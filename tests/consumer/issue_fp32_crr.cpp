// Issue 6, set 1 (see declarations.hpp).
#include "consumer/declarations.hpp"
#include "kdecl/declare.hpp"

DECL_KERNEL_SET(consumer_issue_fp32_crr, CONSUMER_ISSUE_FP32_CRR_SET);
