# kdecl_add_kernel_sets(<target> SOURCES <file>...
#                       [BACKENDS <host|cuda|hip>...]
#                       [CUDA_GENCODES <flag>...] [HIP_ARCHITECTURES <gfx>...])
#
# Adds source files holding DECL_KERNEL_SET declarations to <target>, once per
# backend ("pass"): as C++ (host kernels), as CUDA through a generated one-line
# .cu wrapper (sm_* kernels), and as HIP through hipcc (gfx* kernels). Every pass
# validates every target of every set (an invalid declaration fails each pass)
# but expands and instantiates only its own backend's targets, so one
# declaration file yields every target's kernels and the passes build in parallel.
#
# Which passes: BACKENDS when given, else the cache variable KDECL_BACKENDS,
# default AUTO: host; cuda when kdecl was built with CUDA and the project enabled
# the CUDA language; hip when kdecl was built with HIP and hipcc and libamdhip64
# are found. `BACKENDS host` (or -DKDECL_BACKENDS=host) turns the GPU passes off.
# Naming a backend that cannot be built here is an error that says why.
#
# Compiler limits (docs/dsl.md, "Set size and compiler limits"): a set is
# expanded one declaration and one target per constant evaluation, and
# registered from a table walked by a loop, so nothing grows with the number of
# declarations, targets or keys. One declaration on one target is still one
# evaluation: kdecl::headers raises each compiler's budget for it (g++
# -fconstexpr-ops-limit, clang -fconstexpr-steps, nvcc max_cost_constexpr_call)
# to roughly the same capacity, and the hipcc pass below does the same.
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
set(KDECL_BACKENDS "AUTO" CACHE STRING
  "Backends kdecl_add_kernel_sets() compiles declarations for when a call names none: AUTO, or a list of host, cuda, hip")
# clang's budget for one constant evaluation, as kdecl::headers sets it for clang++ (32x the default).
set(KDECL_CLANG_CONSTEXPR_STEPS 33554432)

# Why backend `name` cannot be built here (empty when it can), in `out`.
function(_kdecl_backend_unavailable name out)
  set(why "")
  if(name STREQUAL "cuda")
    if(NOT KDECL_WITH_CUDA)
      set(why "kdecl was built without CUDA")
    elseif(NOT CMAKE_CUDA_COMPILER_LOADED)
      set(why "this project has not enabled the CUDA language (project(... CUDA) or enable_language(CUDA))")
    endif()
  elseif(name STREQUAL "hip")
    if(NOT KDECL_WITH_HIP)
      set(why "kdecl was built without HIP")
    else()
      find_program(KDECL_HIPCC hipcc)
      find_library(KDECL_AMDHIP64 amdhip64)
      if(NOT KDECL_HIPCC OR NOT KDECL_AMDHIP64)
        set(why "hipcc or libamdhip64 was not found")
      endif()
    endif()
  elseif(NOT name STREQUAL "host")
    set(why "it is not a backend (host, cuda and hip are)")
  endif()
  set(${out} "${why}" PARENT_SCOPE)
endfunction()

# Whether `file` (and the headers it includes by a path relative to itself) declares kernel sets
# for NVIDIA or host targets only: every `targets(...)` list in them names sm_* or host. Such a
# file's HIP pass has no gfx kernel to build: it compiles the host side only (--cuda-host-only),
# so clang still checks every declaration, in about a third of the time of two offload archs.
# A file with no `targets(` of its own (its sets declared elsewhere) keeps the full pass.
function(_kdecl_declares_no_gfx_target file out)
  get_filename_component(dir "${file}" DIRECTORY)
  # An edit that adds a target must configure again, or its kernels would be missing (each
  # file listed once: ninja refuses two rules for one path).
  get_property(depends DIRECTORY PROPERTY CMAKE_CONFIGURE_DEPENDS)
  set(scanned "${file}")
  file(READ "${file}" text)
  string(REGEX MATCHALL "#include \"[^\"]+\"" includes "${text}")
  foreach(inc IN LISTS includes)
    string(REGEX REPLACE "^#include \"|\"$" "" header "${inc}")
    get_filename_component(header "${dir}/${header}" ABSOLUTE)
    if(EXISTS "${header}")
      list(APPEND scanned "${header}")
      file(READ "${header}" more)
      string(APPEND text "\n${more}")
    endif()
  endforeach()
  foreach(path IN LISTS scanned)
    if(NOT path IN_LIST depends)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
      list(APPEND depends "${path}")
    endif()
  endforeach()
  string(REGEX MATCHALL "targets\\([^)]*\\)" lists "${text}")
  set(result FALSE)
  if(lists)
    set(result TRUE)
    foreach(decl IN LISTS lists)
      string(REGEX REPLACE "^targets\\(|\\)$" "" names "${decl}")
      string(REPLACE "," ";" names "${names}")
      foreach(name IN LISTS names)
        string(STRIP "${name}" name)
        if(NOT name MATCHES "^(sm_[0-9]+a?|host)$")
          set(result FALSE)
        endif()
      endforeach()
    endforeach()
  endif()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

function(kdecl_add_kernel_sets target)
  cmake_parse_arguments(ARG "" "" "SOURCES;BACKENDS;CUDA_GENCODES;HIP_ARCHITECTURES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kdecl_add_kernel_sets(${target}): unexpected arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_CUDA_GENCODES)
    set(ARG_CUDA_GENCODES ${KDECL_DEFAULT_CUDA_GENCODES})
  endif()
  if(NOT ARG_HIP_ARCHITECTURES)
    set(ARG_HIP_ARCHITECTURES ${KDECL_DEFAULT_HIP_ARCHITECTURES})
  endif()

  # The passes, in the order host, cuda, hip.
  set(requested ${ARG_BACKENDS})
  set(origin "BACKENDS")
  if(NOT requested)
    set(requested ${KDECL_BACKENDS})
    set(origin "KDECL_BACKENDS")
  endif()
  set(passes "")
  if(requested STREQUAL "AUTO")
    foreach(name IN ITEMS host cuda hip)
      _kdecl_backend_unavailable(${name} why)
      if(NOT why)
        list(APPEND passes ${name})
      endif()
    endforeach()
  else()
    foreach(name IN LISTS requested)
      _kdecl_backend_unavailable(${name} why)
      if(why)
        message(FATAL_ERROR "kdecl_add_kernel_sets(${target}): ${origin} names ${name}, but ${why}")
      endif()
    endforeach()
    foreach(name IN ITEMS host cuda hip)
      if(name IN_LIST requested)
        list(APPEND passes ${name})
      endif()
    endforeach()
  endif()
  if(NOT passes)
    message(FATAL_ERROR "kdecl_add_kernel_sets(${target}): ${origin} names no backend")
  endif()

  set(wrapper_dir "${CMAKE_CURRENT_BINARY_DIR}/kdecl_backends/${target}")
  file(MAKE_DIRECTORY "${wrapper_dir}")

  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)

    if("host" IN_LIST passes)
      target_sources(${target} PRIVATE "${abs}")
    endif()

    if("cuda" IN_LIST passes)
      set(cu "${wrapper_dir}/${stem}.cuda.cu")
      file(CONFIGURE OUTPUT "${cu}" CONTENT "// Generated: compiles ${src} for the CUDA backend.\n#define KDECL_BACKEND_PASS 1\n#include \"${abs}\"\n")
      target_sources(${target} PRIVATE "${cu}")
      set(cuda_options ${ARG_CUDA_GENCODES})
      if(NOT CMAKE_CUDA_STANDARD)
        # The DSL is C++20 and nvcc defaults to C++17; CMake 3.25 has no cuda_std_20 flag for nvcc 13.
        list(APPEND cuda_options -std=c++20)
      endif()
      set_source_files_properties("${cu}" PROPERTIES COMPILE_OPTIONS "${cuda_options}")
    endif()

    if("hip" IN_LIST passes)
      set(obj "${wrapper_dir}/${stem}.hip.o")
      # KDECL_HIP_OPTIMIZATION: -O3 unless the project builds device code only to check it (kdecl's CI: -O0).
      set(hip_optimization -O3)
      if(DEFINED KDECL_HIP_OPTIMIZATION)
        set(hip_optimization ${KDECL_HIP_OPTIMIZATION})
      endif()
      set(offload "")
      foreach(gfx IN LISTS ARG_HIP_ARCHITECTURES)
        list(APPEND offload "--offload-arch=${gfx}")
      endforeach()
      set(hip_what "${ARG_HIP_ARCHITECTURES}")
      _kdecl_declares_no_gfx_target("${abs}" no_gfx)
      if(no_gfx)
        list(APPEND offload "--cuda-host-only")
        set(hip_what "host side only: no gfx target declared")
      endif()
      # The target's include directories and definitions (kdecl's included), as the other passes see them.
      set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
      set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
      add_custom_command(
        OUTPUT "${obj}"
        COMMAND "${KDECL_HIPCC}" -std=c++20 ${hip_optimization} -fPIC -x hip ${offload} -DKDECL_BACKEND_PASS=1
                -fconstexpr-steps=${KDECL_CLANG_CONSTEXPR_STEPS}
                "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>" "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
                -MD -MF "${obj}.d" -c "${abs}" -o "${obj}"
        DEPENDS "${abs}"
        DEPFILE "${obj}.d"
        COMMENT "hipcc ${src} (${hip_what})"
        COMMAND_EXPAND_LISTS VERBATIM)
      target_sources(${target} PRIVATE "${obj}")
      set_source_files_properties("${obj}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    endif()
  endforeach()

  target_link_libraries(${target} PUBLIC kdecl::kdecl)
  if("hip" IN_LIST passes)
    target_link_libraries(${target} PUBLIC "${KDECL_AMDHIP64}")
  endif()
  # The passes this target's declarations were compiled for.
  set_property(TARGET ${target} APPEND PROPERTY KDECL_KERNEL_SET_BACKENDS ${passes})
endfunction()
