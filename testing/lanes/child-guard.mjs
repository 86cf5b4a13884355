// Loaded with `node --import` (NODE_OPTIONS) into every Node program a unit-lane test starts, such
// as the nbserve CLI: that program may not start a kernel, browser, jupyter_server or JupyterHub.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { guardChildProcess } from './refused.mjs';

guardChildProcess(childProcess, (need, commandLine) => {
  process.stderr.write(`[unit lane] refused to start ${need}: ${commandLine}\n`);
});
syncBuiltinESMExports();
