// Runs one WASI preview-1 command module under Node's node:wasi for oracles.py.
//
// Usage: node --no-warnings node_wasi_driver.mjs CONFIG.json
// CONFIG.json: {module, args, env, preopens: {guest: host}, stdin, stdout, stderr, result},
// all paths absolute. The guest's stdio go to the named files (not to this process's own
// streams, which stay free for Node's diagnostics), and {exit_code, trap} is written to
// `result`: exit_code is proc_exit's code (0 when _start returns), trap the error's text when
// the module trapped or failed to instantiate.
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const stdin = openSync(config.stdin, 'r');
const stdout = openSync(config.stdout, 'w');
const stderr = openSync(config.stderr, 'w');

let outcome;
try {
  const wasi = new WASI({
    version: 'preview1',
    args: config.args,
    env: config.env,
    preopens: config.preopens,
    stdin,
    stdout,
    stderr,
    // proc_exit returns its code from start() instead of ending this process.
    returnOnExit: true,
  });
  const module = new WebAssembly.Module(readFileSync(config.module));
  const instance = new WebAssembly.Instance(module, wasi.getImportObject());
  const exitCode = wasi.start(instance);
  outcome = { exit_code: exitCode ?? 0, trap: null };
} catch (error) {
  outcome = { exit_code: null, trap: String((error && error.message) || error) };
} finally {
  closeSync(stdin);
  closeSync(stdout);
  closeSync(stderr);
}
writeFileSync(config.result, JSON.stringify(outcome));
