// The other 15 entry points of wasi_snapshot_preview1: arguments and environment, clocks,
// random_get, poll_oneoff, proc_exit / proc_raise, sched_yield and the socket calls.
// Conventions as in wasi_calls_fd.glsl.

// ---- Arguments and environment --------------------------------------------------------------

// *_sizes_get: the count and the bytes of all strings with their NULs.
uint wasi_sizes_get(uint count, uint bytes, uint count_ptr, uint size_ptr) {
  if (!wasi_range_ok(count_ptr, 4u) || !wasi_range_ok(size_ptr, 4u)) return WASI_ERRNO_FAULT;
  wasi_store_u32(count_ptr, count);
  wasi_store_u32(size_ptr, bytes);
  return WASI_ERRNO_SUCCESS;
}

// *_get: `count` pointers (buf + each string's offset) at ptrs, then the strings at buf.
// Resumable: 4 units per pointer, 1 per byte.
uint wasi_strings_get(uint header, uint ptrs, uint buf, uint budget, INOUT(uint) progress) {
  uint count = wasi_get(header);
  uint bytes = wasi_get(header + 1u);
  uint table = wasi_get(header + 2u);
  uint data = wasi_get(header + 3u);
  if (progress == 0u) {
    if (!wasi_array_ok(ptrs, count, 4u) || !wasi_range_ok(buf, bytes)) return WASI_ERRNO_FAULT;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  while (wasi_cont(WASI_C_I) < count) {
    if (!wasi_work_left(work)) return wasi_again(progress);
    uint i = wasi_cont(WASI_C_I);
    wasi_store_u32(ptrs + 4u * i, buf + wasi_get(table + i));
    wasi_set_cont(WASI_C_I, i + 1u);
    work.used += 4u;
  }
  while (wasi_cont(WASI_C_DONE) < bytes) {
    if (!wasi_work_left(work)) return wasi_again(progress);
    uint done = wasi_cont(WASI_C_DONE);
    uint n = min(bytes - done, wasi_work_chunk(work));
    for (uint k = 0u; k < n; k++) memory_set_byte(buf + done + k, wasi_region_byte(data, done + k));
    work.used += n;
    wasi_set_cont(WASI_C_DONE, done + n);
  }
  return WASI_ERRNO_SUCCESS;
}

uint wasi_args_sizes_get(uint argc_ptr, uint size_ptr) {
  return wasi_sizes_get(wasi_get(WASI_H_ARGC), wasi_get(WASI_H_ARGS_BYTES), argc_ptr, size_ptr);
}

uint wasi_args_get(uint argv, uint argv_buf, uint budget, INOUT(uint) progress) {
  return wasi_strings_get(WASI_H_ARGC, argv, argv_buf, budget, progress);
}

uint wasi_environ_sizes_get(uint count_ptr, uint size_ptr) {
  return wasi_sizes_get(wasi_get(WASI_H_ENVC), wasi_get(WASI_H_ENV_BYTES), count_ptr, size_ptr);
}

uint wasi_environ_get(uint environ, uint environ_buf, uint budget, INOUT(uint) progress) {
  return wasi_strings_get(WASI_H_ENVC, environ, environ_buf, budget, progress);
}

// ---- Clocks ---------------------------------------------------------------------------------

// Every clock (realtime, monotonic, process and thread CPU time) reads the instance's virtual
// counter, which the caller passes as `now`; unknown clock ids are INVAL.
uint wasi_clock_res_get(uint id, uint res_ptr) {
  if (id >= WASI_CLOCK_COUNT) return WASI_ERRNO_INVAL;
  if (!wasi_range_ok(res_ptr, 8u)) return WASI_ERRNO_FAULT;
  wasi_store_u64(res_ptr, wasi_get64(WASI_H_CLOCK_RES));
  return WASI_ERRNO_SUCCESS;
}

uint wasi_clock_time_get(uint id, uvec2 precision_ns, uint time_ptr, uvec2 now) {
  if (id >= WASI_CLOCK_COUNT) return WASI_ERRNO_INVAL;
  if (!wasi_range_ok(time_ptr, 8u)) return WASI_ERRNO_FAULT;
  wasi_store_u64(time_ptr, now);
  return WASI_ERRNO_SUCCESS;
}

// ---- random_get -----------------------------------------------------------------------------

// The next buf_len bytes of the instance's ChaCha20 stream (wasi_chacha20.glsl). Resumable:
// WASI_COST_CHACHA units per keystream block used plus one per byte.
uint wasi_random_get(uint buf, uint buf_len, uint budget, INOUT(uint) progress) {
  if (progress == 0u) {
    if (!wasi_range_ok(buf, buf_len)) return WASI_ERRNO_FAULT;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  while (wasi_cont(WASI_C_DONE) < buf_len) {
    if (!wasi_work_left(work)) return wasi_again(progress);
    uvec2 pos = wasi_get64(WASI_H_RANDOM_POS);
    WasiChachaBlock block = wasi_random_block(pos);
    uint done = wasi_cont(WASI_C_DONE);
    uint at = pos.x & 63u;
    uint n = min(buf_len - done, WASI_BLOCK_BYTES - at);
    for (uint k = 0u; k < n; k++) memory_set_byte(buf + done + k, wasi_chacha_byte(block, at + k));
    work.used += WASI_COST_CHACHA + n;
    wasi_set64(WASI_H_RANDOM_POS, u64_add(pos, uvec2(n, 0u)));
    wasi_set_cont(WASI_C_DONE, done + n);
  }
  return WASI_ERRNO_SUCCESS;
}

// ---- poll_oneoff ----------------------------------------------------------------------------

uint wasi_sub_addr(uint in_ptr, uint i) { return in_ptr + i * WASI_SUBSCRIPTION_SIZE; }

// A clock subscription's deadline on the virtual clock: absolute, or now + timeout
// (saturating).
uvec2 wasi_sub_deadline(uint sub, uvec2 now) {
  uvec2 timeout = wasi_load_u64(sub + 24u);
  if ((wasi_load_u16(sub + 40u) & WASI_SUBCLOCK_ABSTIME) != 0u) return timeout;
  uvec2 sum = u64_add(now, timeout);
  return u64_lt(sum, now) ? uvec2(0xFFFFFFFFu, 0xFFFFFFFFu) : sum;
}

// Descriptor subscriptions (fd_read / fd_write on files and stdio) are always ready; nbytes is
// what can be read (content after the offset) or written (storage left). Clock subscriptions
// are ready when their deadline has passed. When there is no descriptor subscription the
// virtual clock advances to the earliest deadline: `advance_to` (>= now) is the time the
// caller's clock must move to, and every clock subscription due by then is reported. A closed
// or directory descriptor is BADF and an unknown clock or tag INVAL for the whole call (as in
// wasmtime), before any event is written. Resumable: one unit per subscription scanned, then
// WASI_COST_EVENT per event written.
uint wasi_poll_oneoff(uint in_ptr, uint out_ptr, uint nsubscriptions, uint nevents_ptr, uvec2 now,
                      OUT(uvec2) advance_to, uint budget, INOUT(uint) progress) {
  advance_to = now;
  if (progress == 0u) {
    if (nsubscriptions == 0u) return WASI_ERRNO_INVAL;
    if (!wasi_array_ok(in_ptr, nsubscriptions, WASI_SUBSCRIPTION_SIZE) ||
        !wasi_array_ok(out_ptr, nsubscriptions, WASI_EVENT_SIZE) || !wasi_range_ok(nevents_ptr, 4u)) {
      return WASI_ERRNO_FAULT;
    }
    wasi_cont_reset();
    wasi_set64(WASI_H_CONT + WASI_C_MIN, uvec2(0xFFFFFFFFu, 0xFFFFFFFFu));
  }
  WasiWork work = wasi_work(budget);
  if (wasi_cont(WASI_C_PHASE) == 0u) {  // check every subscription, find the earliest deadline
    while (wasi_cont(WASI_C_I) < nsubscriptions) {
      if (!wasi_work_left(work)) return wasi_again(progress);
      uint sub = wasi_sub_addr(in_ptr, wasi_cont(WASI_C_I));
      uint tag = wasi_load_u8(sub + 8u);
      if (tag == WASI_EVENTTYPE_CLOCK) {
        if (wasi_load_u32(sub + 16u) >= WASI_CLOCK_COUNT) return WASI_ERRNO_INVAL;
        uvec2 deadline = wasi_sub_deadline(sub, now);
        if (u64_lt(deadline, wasi_get64(WASI_H_CONT + WASI_C_MIN))) wasi_set64(WASI_H_CONT + WASI_C_MIN, deadline);
      } else if (tag == WASI_EVENTTYPE_FD_READ || tag == WASI_EVENTTYPE_FD_WRITE) {
        uint fd = wasi_load_u32(sub + 16u);
        if (!wasi_fd_valid(fd) || wasi_fd_kind(fd) == WASI_KIND_DIR) return WASI_ERRNO_BADF;
        wasi_set_cont(WASI_C_ANY, 1u);
      } else {
        return WASI_ERRNO_INVAL;
      }
      wasi_set_cont(WASI_C_I, wasi_cont(WASI_C_I) + 1u);
      work.used += 1u;
    }
    uvec2 earliest = wasi_get64(WASI_H_CONT + WASI_C_MIN);
    uvec2 due = wasi_cont(WASI_C_ANY) != 0u || u64_lt(earliest, now) ? now : earliest;
    wasi_set64(WASI_H_CONT + WASI_C_MIN, due);  // from now on: the time events are due by
    wasi_set_cont(WASI_C_I, 0u);
    wasi_set_cont(WASI_C_PHASE, 1u);
  }
  uvec2 due = wasi_get64(WASI_H_CONT + WASI_C_MIN);
  while (wasi_cont(WASI_C_I) < nsubscriptions) {
    if (!wasi_work_left(work)) return wasi_again(progress);
    uint sub = wasi_sub_addr(in_ptr, wasi_cont(WASI_C_I));
    uint tag = wasi_load_u8(sub + 8u);
    bool ready = true;
    uint nbytes = 0u;
    if (tag == WASI_EVENTTYPE_CLOCK) {
      ready = !u64_lt(due, wasi_sub_deadline(sub, now));
    } else {
      uint fd = wasi_load_u32(sub + 16u);
      uint i = wasi_fd_inode(fd);
      if (tag == WASI_EVENTTYPE_FD_READ) {
        uvec2 offset = wasi_fd_offset(fd);
        uint size = wasi_iget(i, WASI_I_SIZE);
        nbytes = offset.y == 0u && offset.x < size ? size - offset.x : 0u;
      } else {
        nbytes = wasi_get(WASI_H_QUOTA) - wasi_get(WASI_H_USED);
      }
    }
    work.used += 1u;
    if (ready) {
      uint ev = out_ptr + wasi_cont(WASI_C_DONE) * WASI_EVENT_SIZE;
      wasi_store_u64(ev, wasi_load_u64(sub));  // userdata
      wasi_store_u16(ev + 8u, WASI_ERRNO_SUCCESS);
      wasi_store_u8(ev + 10u, tag);
      wasi_store_zeros(ev + 11u, 5u);
      wasi_store_u64(ev + 16u, uvec2(nbytes, 0u));
      wasi_store_zeros(ev + 24u, 8u);  // flags 0, padding
      wasi_set_cont(WASI_C_DONE, wasi_cont(WASI_C_DONE) + 1u);
      work.used += WASI_COST_EVENT;
    }
    wasi_set_cont(WASI_C_I, wasi_cont(WASI_C_I) + 1u);
  }
  wasi_store_u32(nevents_ptr, wasi_cont(WASI_C_DONE));
  advance_to = due;
  return WASI_ERRNO_SUCCESS;
}

// ---- Process, scheduling, sockets -----------------------------------------------------------

// Records the exit code; the integrator ends the instance (the call does not return to it).
uint wasi_proc_exit(uint code) {
  wasi_set(WASI_H_EXIT_STATE, WASI_EXIT_EXITED);
  wasi_set(WASI_H_EXIT_CODE, code);
  return WASI_STATUS_EXIT;
}

// Signal 0 (none) does nothing; every other signal terminates the instance (no host process is
// signalled); numbers beyond the spec's 30 are INVAL.
uint wasi_proc_raise(uint sig) {
  if (sig > WASI_SIGNAL_MAX) return WASI_ERRNO_INVAL;
  if (sig == 0u) return WASI_ERRNO_SUCCESS;
  wasi_set(WASI_H_EXIT_STATE, WASI_EXIT_SIGNALLED);
  wasi_set(WASI_H_EXIT_CODE, sig);
  return WASI_STATUS_RAISE;
}

uint wasi_sched_yield() { return WASI_ERRNO_SUCCESS; }

// No sockets exist: BADF for a closed descriptor, NOTSOCK for any open one.
uint wasi_not_a_socket(uint fd) { return wasi_fd_valid(fd) ? WASI_ERRNO_NOTSOCK : WASI_ERRNO_BADF; }

uint wasi_sock_accept(uint fd, uint flags, uint fd_ptr) { return wasi_not_a_socket(fd); }

uint wasi_sock_recv(uint fd, uint ri_data, uint ri_data_len, uint ri_flags, uint ro_datalen_ptr, uint ro_flags_ptr) {
  return wasi_not_a_socket(fd);
}

uint wasi_sock_send(uint fd, uint si_data, uint si_data_len, uint si_flags, uint so_datalen_ptr) {
  return wasi_not_a_socket(fd);
}

uint wasi_sock_shutdown(uint fd, uint how) { return wasi_not_a_socket(fd); }
