#!/usr/bin/env bash
# Installs the Debian 12 packages GraphLens needs that are missing. Sourced by run.sh and test.sh.
set -euo pipefail
GRAPHLENS_PACKAGES=(
  cmake ninja-build g++ ccache pkg-config
  qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev libqt6opengl6-dev libxkbcommon-dev
  libvulkan-dev glslang-tools glslang-dev libspirv-cross-c-shared-dev spirv-cross spirv-tools
  libfmt-dev nlohmann-json3-dev libgraphviz-dev librenderdoc-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  clang libclang-rt-14-dev
  xvfb xauth
  python3-jsonschema
  help2man librsvg2-bin dpkg-dev file man-db desktop-file-utils shared-mime-info libglib2.0-bin
)
missing=()
# npm fetches llama.cpp's prebuilt Vulkan libraries (scripts/fetch-llama-vulkan.sh); a machine
# with Node.js from elsewhere has its own npm, which Debian's package would conflict with.
command -v npm > /dev/null || missing+=(npm)
for p in "${GRAPHLENS_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  line="apt-get install -y --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "GraphLens needs these Debian packages; run as root:" >&2
    echo "  apt-get update && $line" >&2
    exit 1
  fi
  echo "Installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends ${missing[*]}
fi
