# Issue 6: a declaration that compiles with g++ compiles with every backend
# compiler. Three stages, each its own CTest case so that they run side by side
# (tests/CMakeLists.txt; STAGE picks one):
#  install  installs this build into a scratch prefix (the fixture the others need);
#  syntax   compiles the consumer's declaration files with one compiler (COMPILER:
#           cxx, clangxx, hipcc or nvcc), syntax only and with the compiler's default
#           limits (none of the -fconstexpr-* or max_cost flags kdecl's targets add):
#           g++ (issue_bf16.cpp only: the project stage compiles the others with
#           g++'s default limit) and clang++ instantiate the host kernels; hipcc and nvcc validate every
#           target and expand their own (none: these sets are host and sm_90). nvcc
#           checks issue 6's sm_90 set through expansion_check.cpp (building its 5,444
#           kernels would take hours);
#  project  builds and runs the consumer project (find_package(kdecl),
#           kdecl_add_kernel_sets) with g++ for the host pass, nvcc for the cuda pass
#           and hipcc for the hip pass, as many as this kdecl has, and checks that
#           naming a backend the project cannot build fails its configuration with
#           the reason.
# Prints the wall time of each step.
#   cmake -DSTAGE=install|syntax|project [-DCOMPILER=...] -DBUILD_DIR=... -DSOURCE_DIR=...
#         -DWORK_DIR=... -DGENERATOR=... -DCXX=... [-DCLANGXX=...] [-DNVCC=...] [-DHIPCC=...]
#         -P consumer_scale_test.cmake
cmake_minimum_required(VERSION 3.25)
set(consumer "${SOURCE_DIR}/tests/consumer")
set(prefix "${WORK_DIR}/prefix")

# run(<label> <command>...): runs, fails the test with the output on an error,
# and prints the wall time under <label>.
function(run label)
  string(TIMESTAMP t0 "%s%f" UTC)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(TIMESTAMP t1 "%s%f" UTC)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${label} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  math(EXPR ds "(${t1} - ${t0}) / 100000")
  math(EXPR s "${ds} / 10")
  math(EXPR tenths "${ds} % 10")
  message(STATUS "${label}: ${s}.${tenths} s")
  if(label MATCHES "^run ")
    message(STATUS "${out}")
  endif()
endfunction()

if(STAGE STREQUAL "install")
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
  run("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
  return()
endif()
if(NOT EXISTS "${prefix}/include/kdecl")
  message(FATAL_ERROR "no installed kdecl in ${prefix}: the install stage runs first (CTest fixture)")
endif()

# ---- 1. syntax only, every compiler, default limits ---------------------------------
set(includes "-I${prefix}/include" "-I${consumer}/include")
set(declaration_files wide_host.cpp issue_fp32_crr.cpp issue_bf16.cpp library_kernels.cpp)
set(compilers cxx)
set(cxx_command "${CXX}" -std=c++20 -fsyntax-only ${includes})
# The project stage builds the other three with g++ at its default limit (tests/consumer/CMakeLists.txt).
set(cxx_files issue_bf16.cpp)
if(CLANGXX)
  list(APPEND compilers clangxx)
  set(clangxx_command "${CLANGXX}" -std=c++20 -fsyntax-only ${includes})
  set(clangxx_files ${declaration_files})
endif()
if(HIPCC)
  list(APPEND compilers hipcc)
  set(hipcc_command "${HIPCC}" -std=c++20 -x hip --offload-arch=gfx90a -fsyntax-only -DKDECL_BACKEND_PASS=1 ${includes})
  set(hipcc_files ${declaration_files})
endif()
if(NVCC)
  list(APPEND compilers nvcc)
  # Host and device front ends and the host compiler, no code generated.
  set(nvcc_command "${NVCC}" -std=c++20 -x cu --expt-relaxed-constexpr -gencode=arch=compute_80,code=sm_80
                   -fdevice-syntax-only -Xcompiler -fsyntax-only -DKDECL_BACKEND_PASS=1 ${includes}
                   -c -o "${WORK_DIR}/nvcc_syntax.o")
  set(nvcc_files wide_host.cpp issue_fp32_crr.cpp expansion_check.cpp library_kernels.cpp)
endif()
if(STAGE STREQUAL "syntax")
  if(NOT COMPILER IN_LIST compilers)
    message(FATAL_ERROR "COMPILER '${COMPILER}' is not one this build found (${compilers})")
  endif()
  foreach(file IN LISTS ${COMPILER}_files)
    run("syntax ${COMPILER} ${file}" ${${COMPILER}_command} "${consumer}/${file}")
  endforeach()
  return()
endif()
if(NOT STAGE STREQUAL "project")
  message(FATAL_ERROR "STAGE '${STAGE}' is not install, syntax or project")
endif()

# ---- 2. the consumer project: g++, nvcc, hipcc, every backend this kdecl has ----------
set(backends host)
set(cuda_flag -DCONSUMER_CUDA=OFF)
if(NVCC)
  string(APPEND backends ",cuda")
  set(cuda_flag -DCONSUMER_CUDA=ON "-DCMAKE_CUDA_COMPILER=${NVCC}")
endif()
if(HIPCC)
  string(APPEND backends ",hip")
endif()
# Unoptimised (build type None): the test is about compiling declarations at scale.
set(common -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_COMPILER=${CXX}")
file(REMOVE_RECURSE "${WORK_DIR}/build" "${WORK_DIR}/refused")
run("configure (BACKENDS ${backends})" "${CMAKE_COMMAND}" -S "${consumer}" -B "${WORK_DIR}/build" ${common} ${cuda_flag}
    "-DCONSUMER_BACKENDS=${backends}")
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
run("build (BACKENDS ${backends})" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" -j ${cores})
run("run consumer_scale" "${WORK_DIR}/build/consumer_scale")

# ---- 3. a backend the project cannot build is refused, with the reason -----------------
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${consumer}" -B "${WORK_DIR}/refused" ${common} -DCONSUMER_CUDA=OFF
                        -DKDECL_BACKENDS=cuda
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# (CMake wraps the message: any space may be a line break.)
# A kdecl built without CUDA (the host-only preset) refuses first, for that reason.
string(REGEX MATCH "KDECL_BACKENDS[ \n]+names[ \n]+cuda,[ \n]+but[ \n]+(this[ \n]+project[ \n]+has[ \n]+not[ \n]+enabled[ \n]+the[ \n]+CUDA[ \n]+language|kdecl[ \n]+was[ \n]+built[ \n]+without[ \n]+CUDA)"
       reason "${err}")
string(REGEX REPLACE "[ \n]+" " " reason "${reason}")
if(rc EQUAL 0 OR NOT reason)
  message(FATAL_ERROR "KDECL_BACKENDS=cuda without the CUDA language was not refused with its reason:\n${out}\n${err}")
endif()
message(STATUS "refused as expected: ${reason}")
