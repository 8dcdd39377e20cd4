// 2,000 host kernels from one wildcard declaration.
#include "consumer/declarations.hpp"
#include "kdecl/declare.hpp"

DECL_KERNEL_SET(consumer_wide_host, CONSUMER_WIDE_HOST_SET);
