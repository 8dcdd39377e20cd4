// Issue 6, set 2 (see declarations.hpp).
#include "consumer/declarations.hpp"
#include "kdecl/declare.hpp"

DECL_KERNEL_SET(consumer_issue_bf16, CONSUMER_ISSUE_BF16_SET);
