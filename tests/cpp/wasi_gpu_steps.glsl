// A fixed sequence of WASI calls for the differential GPU test (test_wasi_gpu.cpp), in the
// device subset: compiled as C++ with the library and embedded into the test shader. Step k
// makes the k-th call with arguments at fixed guest addresses the host prepared; it is invoked
// again while it answers WASI_AGAIN, exactly as an integrator re-invokes a resumable call.

const uint WASI_TEST_STEPS = 26u;
const uint WASI_TEST_RIGHTS = 0x0FFFFFFFu;

uint wasi_test_step(uint step, uvec2 now, uint budget, INOUT(uint) progress) {
  uint r = 0xFFFFFFFFu;
  uvec2 all = uvec2(WASI_TEST_RIGHTS, 0u);
  if (step == 0u) r = wasi_path_open(3u, 1u, 0x200u, 8u, WASI_OFLAG_CREAT, all, all, 0u, 0x800u, now, budget, progress);
  if (step == 1u) r = wasi_fd_write(4u, 0x100u, 3u, 0x804u, now, budget, progress);
  if (step == 2u) r = wasi_fd_pwrite(4u, 0x100u, 1u, uvec2(9000u, 0u), 0x808u, now, budget, progress);
  if (step == 3u) r = wasi_fd_seek(4u, uvec2(100u, 0u), WASI_WHENCE_SET, 0x810u);
  if (step == 4u) r = wasi_fd_read(4u, 0x140u, 2u, 0x818u, budget, progress);
  if (step == 5u) r = wasi_fd_pread(4u, 0x140u, 2u, uvec2(8500u, 0u), 0x81Cu, budget, progress);
  if (step == 6u) r = wasi_fd_filestat_set_size(4u, uvec2(20000u, 0u), now, budget, progress);
  if (step == 7u) r = wasi_path_create_directory(3u, 0x300u, 7u, now, budget, progress);
  if (step == 8u) r = wasi_path_rename(3u, 0x200u, 8u, 3u, 0x240u, 9u, now, budget, progress);
  if (step == 9u) r = wasi_path_symlink(0x280u, 5u, 3u, 0x2C0u, 6u, now, budget, progress);
  if (step == 10u) r = wasi_path_filestat_get(3u, 1u, 0x2C0u, 6u, 0x840u, budget, progress);
  if (step == 11u) r = wasi_fd_readdir(3u, 0x9000u, 300u, uvec2(0u, 0u), 0x820u, budget, progress);
  if (step == 12u) r = wasi_random_get(0x8000u, 700u, budget, progress);
  if (step == 13u) r = wasi_args_get(0xA000u, 0xA100u, budget, progress);
  if (step == 14u) r = wasi_environ_get(0xA200u, 0xA300u, budget, progress);
  if (step == 15u) {
    uvec2 advance = uvec2(0u, 0u);
    r = wasi_poll_oneoff(0x400u, 0xB000u, 3u, 0x824u, now, advance, budget, progress);
    wasi_store_u64(0x828u, advance);
  }
  if (step == 16u) r = wasi_path_readlink(3u, 0x2C0u, 6u, 0xC000u, 50u, 0x830u, budget, progress);
  if (step == 17u) r = wasi_fd_prestat_dir_name(3u, 0xC100u, 10u, budget, progress);
  if (step == 18u) r = wasi_path_unlink_file(3u, 0x240u, 9u, now, budget, progress);
  if (step == 19u) r = wasi_fd_write(4u, 0x100u, 1u, 0x834u, now, budget, progress);
  if (step == 20u) r = wasi_fd_filestat_get(4u, 0x880u);
  if (step == 21u) r = wasi_fd_close(4u);
  if (step == 22u) r = wasi_fd_write(1u, 0x100u, 3u, 0x838u, now, budget, progress);
  if (step == 23u) r = wasi_path_open(3u, 1u, 0x2C0u, 6u, 0u, all, all, 0u, 0x800u, now, budget, progress);
  if (step == 24u) r = wasi_clock_time_get(1u, uvec2(0u, 0u), 0x850u, now);
  if (step == 25u) r = wasi_proc_exit(7u);
  return r;
}
