// Loaded with `node --import` (NODE_OPTIONS) into every Node program a unit-lane test starts, such
// as the nbserve CLI: that program may not start a kernel, browser, jupyter_server or JupyterHub.
// What it refused goes to the file the test's process reads when the file's tests are done.
import childProcess from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { guardChildProcess } from './refused.mjs';

guardChildProcess(childProcess, (need, commandLine) => {
  const line = `${need}: ${commandLine} (in ${process.argv.slice(1).join(' ')})\n`;
  process.stderr.write(`[unit lane] refused ${line}`);
  const record = process.env.NBSERVE_UNIT_LANE_REFUSED;
  if (record) appendFileSync(record, line);
});
syncBuiltinESMExports();
