// cudnn-frontend's headers compile in an experimental Blackwell RMSNorm+SiLU engine
// (cudnn_frontend/experimental/sm100_rms_norm_silu_engine.h, included by plans.h) that
// builds its kernel with NVRTC. Fused attention never reaches it, and kdecl does not link
// NVRTC: the GPU machine has no libnvrtc on its default library path, and a library the
// binary needs at start-up would stop every kdecl command there, not only `bench fmha`.
// These weak definitions satisfy the linker and report NVRTC as failing; a real libnvrtc
// linked into the binary takes precedence over them.
#include <nvrtc.h>

extern "C" {

__attribute__((weak)) nvrtcResult nvrtcCreateProgram(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                                     const char* const*) {
  return NVRTC_ERROR_INTERNAL_ERROR;
}
__attribute__((weak)) nvrtcResult nvrtcDestroyProgram(nvrtcProgram*) { return NVRTC_ERROR_INTERNAL_ERROR; }
__attribute__((weak)) nvrtcResult nvrtcCompileProgram(nvrtcProgram, int, const char* const*) {
  return NVRTC_ERROR_INTERNAL_ERROR;
}
__attribute__((weak)) nvrtcResult nvrtcGetCUBINSize(nvrtcProgram, size_t*) { return NVRTC_ERROR_INTERNAL_ERROR; }
__attribute__((weak)) nvrtcResult nvrtcGetCUBIN(nvrtcProgram, char*) { return NVRTC_ERROR_INTERNAL_ERROR; }
__attribute__((weak)) nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram, size_t*) { return NVRTC_ERROR_INTERNAL_ERROR; }
__attribute__((weak)) nvrtcResult nvrtcGetProgramLog(nvrtcProgram, char*) { return NVRTC_ERROR_INTERNAL_ERROR; }

}  // extern "C"
