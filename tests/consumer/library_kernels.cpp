// The static library's declarations: a host, a CUDA and a HIP kernel. Linked as
// a whole archive so that no registrar is dropped (docs/registration.md).
#include "consumer/declarations.hpp"
#include "kdecl/declare.hpp"

DECL_KERNEL_SET(consumer_library_host, CONSUMER_LIBRARY_HOST_SET);
DECL_KERNEL_SET(consumer_library_cuda, CONSUMER_LIBRARY_CUDA_SET);
DECL_KERNEL_SET(consumer_library_hip, CONSUMER_LIBRARY_HIP_SET);
