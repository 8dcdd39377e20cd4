# Device code of the project's own CUDA programs (GPU tests, benchmarks, the kdecl tool's kernels): the
# same choice scripts/build.sh makes for the kernel sets. Machine code (SASS) where the sets carry it
# (KDECL_DEFAULT_CUDA_GENCODES names a code=sm_ target: a GPU is there to run it); PTX only otherwise
# (CI and machines without a GPU: nvcc still instantiates and compiles every kernel, only ptxas is
# skipped, and the driver would compile the PTX at load time; with KDECL_DEVICE_CODE_CHECK_ONLY, as
# scripts/build.sh sets it there, without optimisation: see the top-level CMakeLists.txt).
#
#   kdecl_device_gencodes(<out-var> <arch>...)   arch: 80, 90, 90a, ...
function(kdecl_device_gencodes out)
  set(flags "")
  foreach(arch IN LISTS ARGN)
    if(KDECL_DEFAULT_CUDA_GENCODES MATCHES "code=sm_")
      list(APPEND flags "-gencode=arch=compute_${arch},code=sm_${arch}")
    else()
      list(APPEND flags "-gencode=arch=compute_${arch},code=compute_${arch}")
    endif()
  endforeach()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
