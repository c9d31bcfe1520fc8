#!/usr/bin/env bash
# Run HERE (a Debian 12 machine with apt and network), before a session on a GPU machine
# that has no network: downloads the Debian packages scripts/gpu-check.sh needs and may not
# find there (glslang and SPIRV-Tools static libraries and tools, Vulkan headers, volk, the Vulkan
# loader) into .gpu-deps/, which git ignores. Carry `.gpu-deps` to the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu-deps/' "$exclude" 2>/dev/null || echo '/.gpu-deps/' >>"$exclude"
mkdir -p .gpu-deps
rm -rf .gpu-deps/root  # what gpu-check.sh unpacked on an earlier run: not worth carrying
cd .gpu-deps
options=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64)
# libglvnd0 and libglx0: the NVIDIA Vulkan driver (libGLX_nvidia.so.0) loads libGLdispatch/libGLX.
apt-get "${options[@]}" download glslang-dev glslang-tools spirv-tools libvulkan-dev libvulkan-volk-dev libvulkan1 \
  libglvnd0 libglx0
ls -l ./*.deb
