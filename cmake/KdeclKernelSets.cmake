# kdecl_add_kernel_sets(<target> SOURCES <file>... [CUDA_GENCODES <flag>...] [HIP_ARCHITECTURES <gfx>...])
#
# Adds source files holding DECL_KERNEL_SET declarations to <target>, once per
# backend: as C++ (host kernels), as CUDA through a generated one-line .cu
# wrapper when the CUDA backend is on (sm_* kernels), and as HIP through hipcc
# when the HIP backend is on (gfx* kernels). Each compilation instantiates
# and registers only the kernels of its own backend, so one declaration file
# yields every target's kernels and every translation unit builds in parallel.
#
# Because a file is compiled once per backend, it should hold declarations (and
# inline code) only: a function with external linkage, main() say, would be
# defined twice. The CUDA and HIP passes define KDECL_BACKEND_PASS=1 for code
# that must appear only in the host pass.

set(KDECL_DEFAULT_CUDA_GENCODES
  "-gencode=arch=compute_80,code=sm_80" "-gencode=arch=compute_90a,code=sm_90a"
  CACHE STRING "nvcc -gencode flags for kernel-set translation units")
set(KDECL_DEFAULT_HIP_ARCHITECTURES "gfx90a;gfx940"
  CACHE STRING "hipcc --offload-arch values for kernel-set translation units")

function(kdecl_add_kernel_sets target)
  cmake_parse_arguments(ARG "" "" "SOURCES;CUDA_GENCODES;HIP_ARCHITECTURES" ${ARGN})
  if(NOT ARG_CUDA_GENCODES)
    set(ARG_CUDA_GENCODES ${KDECL_DEFAULT_CUDA_GENCODES})
  endif()
  if(NOT ARG_HIP_ARCHITECTURES)
    set(ARG_HIP_ARCHITECTURES ${KDECL_DEFAULT_HIP_ARCHITECTURES})
  endif()
  set(wrapper_dir "${CMAKE_CURRENT_BINARY_DIR}/kdecl_backends/${target}")
  file(MAKE_DIRECTORY "${wrapper_dir}")

  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    target_sources(${target} PRIVATE "${abs}")

    if(KDECL_WITH_CUDA)
      set(cu "${wrapper_dir}/${stem}.cuda.cu")
      file(CONFIGURE OUTPUT "${cu}" CONTENT "// Generated: compiles ${src} for the CUDA backend.\n#define KDECL_BACKEND_PASS 1\n#include \"${abs}\"\n")
      target_sources(${target} PRIVATE "${cu}")
      set_source_files_properties("${cu}" PROPERTIES COMPILE_OPTIONS "${ARG_CUDA_GENCODES}")
    endif()

    if(KDECL_WITH_HIP)
      set(obj "${wrapper_dir}/${stem}.hip.o")
      set(offload "")
      foreach(gfx IN LISTS ARG_HIP_ARCHITECTURES)
        list(APPEND offload "--offload-arch=${gfx}")
      endforeach()
      set(incs "$<TARGET_PROPERTY:kdecl::headers,INTERFACE_INCLUDE_DIRECTORIES>")
      add_custom_command(
        OUTPUT "${obj}"
        COMMAND "${KDECL_HIPCC}" -std=c++20 -O3 -fPIC -x hip ${offload} -DKDECL_BACKEND_PASS=1
                "-I$<JOIN:${incs},;-I>" -MD -MF "${obj}.d" -c "${abs}" -o "${obj}"
        DEPENDS "${abs}"
        DEPFILE "${obj}.d"
        COMMENT "hipcc ${src} (${ARG_HIP_ARCHITECTURES})"
        COMMAND_EXPAND_LISTS VERBATIM)
      target_sources(${target} PRIVATE "${obj}")
      set_source_files_properties("${obj}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    endif()
  endforeach()

  target_link_libraries(${target} PUBLIC kdecl::kdecl)
  if(KDECL_WITH_HIP)
    target_link_libraries(${target} PUBLIC "${KDECL_AMDHIP64}")
  endif()
endfunction()
