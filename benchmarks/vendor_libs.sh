# Sourced by the GPU-machine scripts (bench_ops.sh, conv_profile.sh): where the vendor libraries the
# kdecl binaries time against live there. Sets
#   cudnn   the folder holding libcudnn.so.9 and its sub-libraries (CUDNN_LIB, else the machine's
#           PyTorch's nvidia.cudnn package, else any nvidia/**/libcudnn.so.9 in its site-packages), or empty
#   nvrtc   the folder holding libnvrtc.so.* that cuDNN's runtime-compiled engines dlopen (NVRTC_LIB, else
#           the same Python environment's nvidia/ packages), or empty
# and vendor_library_path, the two (where found) ahead of the carried libraries (.carry/lib) and the
# LD_LIBRARY_PATH before.
cudnn=${CUDNN_LIB:-}
if [[ -z $cudnn ]]; then
  cudnn=$(python3 -c 'import os, nvidia.cudnn as m
f = getattr(m, "__file__", None)
print(os.path.join(os.path.dirname(f) if f else list(m.__path__)[0], "lib"))' 2>/dev/null)
fi
if [[ -z $cudnn || ! -f $cudnn/libcudnn.so.9 ]]; then  # another wheel layout: look through site-packages
  cudnn=$(python3 -c 'import glob, os, site
hits = [h for d in site.getsitepackages() for h in glob.glob(os.path.join(d, "nvidia", "**", "libcudnn.so.9"), recursive=True)]
print(os.path.dirname(hits[0]) if hits else "")' 2>/dev/null)
fi
[[ -n $cudnn && -f $cudnn/libcudnn.so.9 ]] || cudnn=
nvrtc=${NVRTC_LIB:-$(python3 -c 'import glob, os, site
hits = [h for d in site.getsitepackages() for h in glob.glob(os.path.join(d, "nvidia", "**", "libnvrtc.so*"), recursive=True)]
print(os.path.dirname(hits[0]) if hits else "")' 2>/dev/null)}
vendor_library_path="${cudnn:+$cudnn:}${nvrtc:+$nvrtc:}$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
