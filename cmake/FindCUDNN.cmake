# FindCUDNN: cuDNN 9 (the vendor baseline of `kdecl bench conv` and `kdecl bench fmha`)
# and, optionally, NVIDIA's header-only cudnn-frontend (the graph API that builds
# cuDNN's fused attention).
#
#   find_package(CUDNN MODULE)
#
# Looks in CUDNN_ROOT / $CUDNN_ROOT, the CUDA toolkit (cuDNN ships inside it at
# /usr/local/cuda here) and the system paths. The frontend headers are looked for
# in CUDNN_FRONTEND_ROOT / $CUDNN_FRONTEND_ROOT and /usr/local/include/cudnn-frontend,
# where scripts/setup-debian.sh installs them from the nvidia-cudnn-frontend wheel.
#
# Defines:
#   CUDNN_FOUND, CUDNN_VERSION (e.g. 9.19.0), CUDNN_INCLUDE_DIR, CUDNN_LIBRARY
#   CUDNN::cudnn                 imported target (libcudnn.so.9, which loads its sub-libraries)
#   CUDNN_FRONTEND_FOUND, CUDNN_FRONTEND_INCLUDE_DIR, CUDNN_FRONTEND_VERSION
#   CUDNN::frontend              interface target (headers; links CUDNN::cudnn)
include(FindPackageHandleStandardArgs)

set(_cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT})
if(CUDAToolkit_INCLUDE_DIRS)
  list(APPEND _cudnn_hints ${CUDAToolkit_INCLUDE_DIRS}/..)
endif()
if(CUDAToolkit_LIBRARY_DIR)
  list(APPEND _cudnn_hints ${CUDAToolkit_LIBRARY_DIR}/..)
endif()
list(APPEND _cudnn_hints /usr/local/cuda)

find_path(CUDNN_INCLUDE_DIR cudnn_version.h HINTS ${_cudnn_hints} PATH_SUFFIXES include)
find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 HINTS ${_cudnn_hints} PATH_SUFFIXES lib lib64 lib/x64)

if(CUDNN_INCLUDE_DIR AND EXISTS "${CUDNN_INCLUDE_DIR}/cudnn_version.h")
  file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _cudnn_v REGEX "^#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ")
  string(REGEX REPLACE ".*CUDNN_MAJOR ([0-9]+).*" "\\1" _major "${_cudnn_v}")
  string(REGEX REPLACE ".*CUDNN_MINOR ([0-9]+).*" "\\1" _minor "${_cudnn_v}")
  string(REGEX REPLACE ".*CUDNN_PATCHLEVEL ([0-9]+).*" "\\1" _patch "${_cudnn_v}")
  set(CUDNN_VERSION "${_major}.${_minor}.${_patch}")
endif()

find_package_handle_standard_args(CUDNN REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR VERSION_VAR CUDNN_VERSION)

if(CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn SHARED IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES IMPORTED_LOCATION "${CUDNN_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
endif()

find_path(CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h
          HINTS ${CUDNN_FRONTEND_ROOT} $ENV{CUDNN_FRONTEND_ROOT} /usr/local/include/cudnn-frontend
          PATH_SUFFIXES include NO_DEFAULT_PATH)
if(CUDNN_FOUND AND CUDNN_FRONTEND_INCLUDE_DIR)
  file(STRINGS "${CUDNN_FRONTEND_INCLUDE_DIR}/cudnn_frontend_version.h" _fe_v
       REGEX "^#define CUDNN_FRONTEND_(MAJOR|MINOR|PATCH)_VERSION ")
  string(REGEX REPLACE ".*MAJOR_VERSION ([0-9]+).*" "\\1" _fe_major "${_fe_v}")
  string(REGEX REPLACE ".*MINOR_VERSION ([0-9]+).*" "\\1" _fe_minor "${_fe_v}")
  string(REGEX REPLACE ".*PATCH_VERSION ([0-9]+).*" "\\1" _fe_patch "${_fe_v}")
  set(CUDNN_FRONTEND_VERSION "${_fe_major}.${_fe_minor}.${_fe_patch}")
  set(CUDNN_FRONTEND_FOUND TRUE)
  if(NOT TARGET CUDNN::frontend)
    add_library(CUDNN::frontend INTERFACE IMPORTED)
    # The frontend's own copy of nlohmann/json (for graph serialisation, unused here) stays out:
    # kdecl uses Debian's, and two copies of one library must not meet in a binary.
    set_target_properties(CUDNN::frontend PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_FRONTEND_INCLUDE_DIR}"
                          INTERFACE_COMPILE_DEFINITIONS CUDNN_FRONTEND_SKIP_JSON_LIB
                          INTERFACE_LINK_LIBRARIES CUDNN::cudnn)
  endif()
else()
  set(CUDNN_FRONTEND_FOUND FALSE)
endif()
mark_as_advanced(CUDNN_INCLUDE_DIR CUDNN_LIBRARY CUDNN_FRONTEND_INCLUDE_DIR)
