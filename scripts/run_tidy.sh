#!/usr/bin/env bash
# Runs clang-tidy (config: .clang-tidy) over the project's C++ sources with the compile
# commands of the given build directory. Fails on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/py}
if [[ ! -f $build_dir/compile_commands.json ]]; then
  echo "tidy: $build_dir/compile_commands.json is missing; build first" >&2
  exit 1
fi
mapfile -t files < <(git ls-files -- 'src/*.cpp')
# clang-tidy parses with clang, which does not know every GCC flag in the database.
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -quiet -p "$build_dir" \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-unused-command-line-argument \
  2> >(grep -v "warnings generated" >&2)
echo "tidy: ${#files[@]} files clean"
