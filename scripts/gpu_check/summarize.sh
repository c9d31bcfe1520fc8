#!/usr/bin/env bash
# The one summary of scripts/gpu-check.sh: every step's exit status and counts, read from the
# step logs in the folder given (NAME.log, NAME.rc). Exit status 124 is a step cut off at its
# time limit, 125 one never started for want of time.
logs=$1
rc() { cat "$logs/$1.rc" 2>/dev/null || echo "none"; }
echo "gpu-check summary ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine:   $(head -1 "$logs/machine.log" 2>/dev/null)"
sed -n '2,$p' "$logs/machine.log" 2>/dev/null | sed 's/^/           /'
grep -h -E "^(Selected|selected|No |device|Device)" "$logs/info.log" 2>/dev/null | sed 's/^/info:      /'

echo "bench wave_gpu (exit $(rc bench_wave_gpu)):"
grep -E "^(vector add|SGEMM|  )" "$logs/bench_wave_gpu.log" 2>/dev/null | sed 's/^/  /'
echo "bench wasmgpu (exit $(rc bench_wasmgpu)):"
grep -E "^ *(worker|int_loop|f64_loop|sieve|fib|workload|  +(ours|native|wasm))" "$logs/bench_wasmgpu.log" 2>/dev/null |
  sed 's/^/  /'

for execution in interpreter compiled; do
  statuses=$(cat "$logs"/spec_"${execution}"_*.rc 2>/dev/null | tr '\n' ' ')
  # "TOTAL (N commands)  a passed, b failed, c not applicable, d outside profile, e beyond reservation"
  cat "$logs"/spec_"${execution}"_*.log 2>/dev/null | awk -v mode="$execution" -v statuses="$statuses" '
    /^TOTAL/ { shards++; sub(/^TOTAL \([0-9]+ commands\) */, "");
               n = split($0, parts, ", "); for (i = 1; i <= n; i++) { split(parts[i], kv, " ");
               name = substr(parts[i], length(kv[1]) + 2); sum[name] += kv[1]; order[i] = name } }
    /^FAILED / { failed_lines++ }
    END { line = ""; for (i = 1; i <= 5; i++) if (order[i] != "") line = line sprintf("%d %s, ", sum[order[i]], order[i]);
          printf "spec %-11s %d shard(s) finished (exits %s): %s%d FAILED lines\n", mode, shards, statuses, line, failed_lines }'
  echo "  slowest suites: $(grep -h -o -E "^[a-z0-9_.-]+ .*\(([0-9.]+) s\)$" "$logs"/spec_"${execution}"_*.log 2>/dev/null |
    sed -E 's/^([^ ]+) .*\(([0-9.]+) s\)$/\2 \1/' | sort -rn | head -5 | awk '{printf "%s %s s; ", $2, $1}')"
  grep -h "^FAILED " "$logs"/spec_"${execution}"_*.log 2>/dev/null | head -15 | sed 's/^/  /'
  grep -h -E "Error|error:" "$logs"/spec_"${execution}"_*.log 2>/dev/null | sort | uniq -c | sort -rn | head -5 | sed 's/^/  /'
done

for name in wasi_testsuite_compiled_c wasi_testsuite_compiled_as wasi_testsuite_interpreter; do
  echo "$name (exit $(rc $name)): $(grep -c " PASS " "$logs/$name.log" 2>/dev/null) PASS lines," \
    "$(grep -c " FAIL " "$logs/$name.log" 2>/dev/null) FAIL lines"
  grep -E "^[a-z_]+: [0-9]+ passed" "$logs/$name.log" 2>/dev/null | sed 's/^/  /'
  grep -E " FAIL " "$logs/$name.log" 2>/dev/null | head -10 | sed 's/^/  /'
done

echo "C++ GPU tests (exit $(rc cpp_gpu)):"
grep -E "^== |\[  PASSED  \]|\[  FAILED  \]|\[  SKIPPED \]" "$logs/cpp_gpu.log" 2>/dev/null | head -30 | sed 's/^/  /'

for name in pytest_wave_gpu pytest_wasmgpu; do
  echo "$name (exit $(rc $name)): $(grep -E "[0-9]+ (passed|failed|error)" "$logs/$name.log" 2>/dev/null | tail -1)"
  grep -E "^(FAILED|ERROR) " "$logs/$name.log" 2>/dev/null | head -15 | sed 's/^/  /'
done

echo "cudecomp (exit $(rc cudecomp)):"
grep -E "^== |\[  PASSED  \]|\[  FAILED  \]|passed|failed|CuPy arrays OK|NCCL backends not run|bench:|cycle|not found|Error" \
  "$logs/cudecomp.log" 2>/dev/null | head -40 | sed 's/^/  /'
echo "steps:"
sed 's/^/  /' "$logs/steps.log" 2>/dev/null
