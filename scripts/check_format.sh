#!/usr/bin/env bash
# Fails when any C, C++ or CUDA source of the project differs from clang-format's output.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.c' '*.cu' '*.cuh')
if ((${#files[@]} == 0)); then
  echo "format-check: no sources"
  exit 0
fi
clang-format --dry-run --Werror "${files[@]}"
echo "format-check: ${#files[@]} files formatted"
