#!/usr/bin/env bash
# Fails when any C, C++ or CUDA source of the project differs from clang-format's output,
# or when any tracked file still holds a merge conflict marker.
set -euo pipefail
cd "$(dirname "$0")/.."
if git grep -nE '^(<<<<<<< |>>>>>>> )' -- . ':!*.md'; then
  echo "format-check: unresolved merge conflict markers (above)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.c' '*.cu' '*.cuh')
if ((${#files[@]} == 0)); then
  echo "format-check: no sources"
  exit 0
fi
clang-format --dry-run --Werror "${files[@]}"
echo "format-check: ${#files[@]} files formatted"
