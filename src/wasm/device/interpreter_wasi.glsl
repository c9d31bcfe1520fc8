// WASI calls of the interpreter. A call of a WASI import does not run inline: the interpreter
// records it (S_WASI_FUNC, S_WASI_RET) and stops the instance with STATUS_WASI, its arguments
// on top of the operand stack; the WASI service (`interp_wasi_service`) then runs the device
// library's entry point (wasi_calls_*.glsl) on the instance's WASI region and memory, pops the
// arguments, pushes the errno, and lets the instance run on at the return address. On Vulkan
// the service is a pipeline per WASI function (wasi_vulkan_main.glsl: the function id is a
// specialization constant, so each pipeline holds one entry point and compiles quickly, and
// only the functions a program calls are ever compiled); on the cpu device it runs between
// the interpreter's steps (cpu_interpreter.cpp). A resumable call that used up its budget stays pending
// (S_WASI_PROGRESS) and continues at the next service.
//
// Needs: the interpreter's layout and memory accessors, the numerics (u64_*, i64_mul) and the
// WASI library.

// The virtual clock of the instance: clock_epoch_ns + clock_resolution_ns x the instructions
// it has executed since instantiation (S_TICKS) + the time poll_oneoff skipped ahead.
uvec2 interp_wasi_now() {
  uvec2 ticks = uvec2(st_get(S_TICKS), st_get(S_TICKS + 1u));
  uvec2 t = u64_add(wasi_get64(WASI_H_CLOCK_EPOCH), i64_mul(ticks, wasi_get64(WASI_H_CLOCK_RES)));
  return u64_add(t, uvec2(st_get(S_CLOCK_SKIP), st_get(S_CLOCK_SKIP + 1u)));
}

uint wasi_arg32(uint base, uint k) { return slot_get(base + k).x; }

uvec2 wasi_arg64(uint base, uint k) { return slot_get(base + k); }

// Runs WASI function `id` with the arguments in stack slots base, base + 1, ... A Vulkan
// service pipeline defines WASI_SERVICE_FUNCTION (wasi_vulkan_main.glsl): only that case is
// compiled, and with it only the library code it calls.
uint interp_wasi_invoke(uint id, uint base, uvec2 now, OUT(uvec2) advance_to, uint budget, INOUT(uint) progress) {
  advance_to = now;
  switch (id) {
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 0
    case 0u: return wasi_args_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 1
    case 1u: return wasi_args_sizes_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 2
    case 2u: return wasi_environ_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 3
    case 3u: return wasi_environ_sizes_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 4
    case 4u: return wasi_clock_res_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 5
    case 5u: return wasi_clock_time_get(wasi_arg32(base, 0u), wasi_arg64(base, 1u), wasi_arg32(base, 2u), now);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 6
    case 6u: return wasi_fd_advise(wasi_arg32(base, 0u), wasi_arg64(base, 1u), wasi_arg64(base, 2u), wasi_arg32(base, 3u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 7
    case 7u: return wasi_fd_allocate(wasi_arg32(base, 0u), wasi_arg64(base, 1u), wasi_arg64(base, 2u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 8
    case 8u: return wasi_fd_close(wasi_arg32(base, 0u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 9
    case 9u: return wasi_fd_datasync(wasi_arg32(base, 0u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 10
    case 10u: return wasi_fd_fdstat_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 11
    case 11u: return wasi_fd_fdstat_set_flags(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 12
    case 12u: return wasi_fd_fdstat_set_rights(wasi_arg32(base, 0u), wasi_arg64(base, 1u), wasi_arg64(base, 2u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 13
    case 13u: return wasi_fd_filestat_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 14
    case 14u: return wasi_fd_filestat_set_size(wasi_arg32(base, 0u), wasi_arg64(base, 1u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 15
    case 15u: return wasi_fd_filestat_set_times(wasi_arg32(base, 0u), wasi_arg64(base, 1u), wasi_arg64(base, 2u), wasi_arg32(base, 3u), now);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 16
    case 16u: return wasi_fd_pread(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg64(base, 3u), wasi_arg32(base, 4u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 17
    case 17u: return wasi_fd_prestat_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 18
    case 18u: return wasi_fd_prestat_dir_name(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 19
    case 19u: return wasi_fd_pwrite(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg64(base, 3u), wasi_arg32(base, 4u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 20
    case 20u: return wasi_fd_read(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 21
    case 21u: return wasi_fd_readdir(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg64(base, 3u), wasi_arg32(base, 4u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 22
    case 22u: return wasi_fd_renumber(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 23
    case 23u: return wasi_fd_seek(wasi_arg32(base, 0u), wasi_arg64(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 24
    case 24u: return wasi_fd_sync(wasi_arg32(base, 0u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 25
    case 25u: return wasi_fd_tell(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 26
    case 26u: return wasi_fd_write(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 27
    case 27u: return wasi_path_create_directory(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 28
    case 28u: return wasi_path_filestat_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg32(base, 4u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 29
    case 29u: return wasi_path_filestat_set_times(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg64(base, 4u), wasi_arg64(base, 5u), wasi_arg32(base, 6u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 30
    case 30u: return wasi_path_link(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg32(base, 4u), wasi_arg32(base, 5u), wasi_arg32(base, 6u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 31
    case 31u: return wasi_path_open(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg32(base, 4u), wasi_arg64(base, 5u), wasi_arg64(base, 6u), wasi_arg32(base, 7u), wasi_arg32(base, 8u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 32
    case 32u: return wasi_path_readlink(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg32(base, 4u), wasi_arg32(base, 5u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 33
    case 33u: return wasi_path_remove_directory(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 34
    case 34u: return wasi_path_rename(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg32(base, 4u), wasi_arg32(base, 5u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 35
    case 35u: return wasi_path_symlink(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg32(base, 4u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 36
    case 36u: return wasi_path_unlink_file(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), now, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 37
    case 37u: return wasi_poll_oneoff(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), now, advance_to, budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 38
    case 38u: return wasi_proc_exit(wasi_arg32(base, 0u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 39
    case 39u: return wasi_proc_raise(wasi_arg32(base, 0u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 40
    case 40u: return wasi_sched_yield();
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 41
    case 41u: return wasi_random_get(wasi_arg32(base, 0u), wasi_arg32(base, 1u), budget, progress);
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 42
    case 42u: return wasi_sock_accept(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 43
    case 43u: return wasi_sock_recv(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg32(base, 4u), wasi_arg32(base, 5u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 44
    case 44u: return wasi_sock_send(wasi_arg32(base, 0u), wasi_arg32(base, 1u), wasi_arg32(base, 2u), wasi_arg32(base, 3u), wasi_arg32(base, 4u));
#endif
#if !defined(WASI_SERVICE_FUNCTION) || WASI_SERVICE_FUNCTION == 45
    case 45u: return wasi_sock_shutdown(wasi_arg32(base, 0u), wasi_arg32(base, 1u));
#endif
    default: break;
  }
  return WASI_ERRNO_NOSYS;
}

// The WASI function id of the instance's pending call.
uint interp_wasi_pending_id() { return function_word(st_get(S_WASI_FUNC), F_CODE); }

// Services the pending WASI call of this instance, whose function id is `id`, with `budget`
// units of work; returns the instance's status afterwards (STATUS_WASI while the call is
// still pending).
uint interp_wasi_service(uint budget, uint id) {
  uint status = st_get(S_STATUS);
  if (status != STATUS_WASI) return status;
  uint f = st_get(S_WASI_FUNC);
  uint params = function_word(f, F_PARAMS);
  uint sp = st_get(S_SP);
  uint base = sp - params;
  uint progress = st_get(S_WASI_PROGRESS);
  uvec2 now = interp_wasi_now();
  uvec2 advance_to = now;
  uint result = interp_wasi_invoke(id, base, now, advance_to, budget, progress);
  if (result == WASI_AGAIN) {
    st_set(S_WASI_PROGRESS, progress);
    return STATUS_WASI;
  }
  st_set(S_WASI_PROGRESS, 0u);
  if (u64_lt(now, advance_to)) {  // poll_oneoff slept: the clock jumps to the deadline
    uvec2 skip = u64_add(uvec2(st_get(S_CLOCK_SKIP), st_get(S_CLOCK_SKIP + 1u)), u64_sub(advance_to, now));
    st_set(S_CLOCK_SKIP, skip.x);
    st_set(S_CLOCK_SKIP + 1u, skip.y);
  }
  if (result == WASI_STATUS_EXIT || result == WASI_STATUS_RAISE) {
    st_set(S_STATUS, STATUS_TRAPPED);
    st_set(S_TRAP, result == WASI_STATUS_EXIT ? WASM_TRAP_WASI_EXIT : WASM_TRAP_WASI_RAISE);
    return STATUS_TRAPPED;
  }
  sp = base;
  if (function_word(f, F_RESULTS) != 0u) {
    slot_set(sp, uvec2(result, 0u));
    sp += 1u;
  }
  st_set(S_SP, sp);
  uint ret = st_get(S_WASI_RET);
  if (ret == RETURN_TO_HOST) {
    st_set(S_STATUS, STATUS_RETURNED);
    return STATUS_RETURNED;
  }
  st_set(S_PC, ret);
  st_set(S_STATUS, STATUS_RUNNING);
  return STATUS_RUNNING;
}
