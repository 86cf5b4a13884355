// needs: kernel
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../../testing/repo.js';
import { makeTempDir } from '../../../testing/temp.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const CLI = [
  '--conditions=@nbserve/source',
  '--import',
  'tsx',
  path.join(REPO, 'packages/cli/src/main.ts'),
  'kernelspec',
  'install',
];

/** One execute through jupyter_client's KernelManager + BlockingKernelClient. */
const CLIENT_SCRIPT = `
import json, sys
from jupyter_client.manager import KernelManager
km = KernelManager(kernel_name=sys.argv[1])
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=60)
msg_id = kc.execute(sys.argv[2])
outputs = []
while True:
    m = kc.get_iopub_msg(timeout=30)
    if m['parent_header'].get('msg_id') != msg_id:
        continue
    outputs.append([m['msg_type'], m['content']])
    if m['msg_type'] == 'status' and m['content']['execution_state'] == 'idle':
        break
reply = kc.get_shell_msg(timeout=30)
while reply['parent_header'].get('msg_id') != msg_id:  # skip late replies to wait_for_ready's probes
    reply = kc.get_shell_msg(timeout=30)
info = kc.kernel_info(reply=True, timeout=30)
kc.stop_channels()
km.shutdown_kernel(now=False)
print(json.dumps({'reply': reply['content'], 'outputs': outputs, 'info': info['content'], 'alive': km.is_alive()}))
`;

let dir: string;
let installOutput = '';

beforeAll(async () => {
  dir = await makeTempDir('kernel-js-jupyter-');
  // The installed kernelspec runs the built kernel: build it as `pnpm build` does.
  await run(path.join(REPO, 'node_modules/.bin/tsc'), ['-b', 'packages/kernel-js'], { cwd: REPO });
  await run(process.execPath, ['scripts/bundle-kernel.mjs', 'dist/kernel'], {
    cwd: path.join(REPO, 'packages/kernel-js'),
  });
  installOutput = (await run(process.execPath, [...CLI, '--prefix', path.join(dir, 'prefix')], { cwd: REPO })).stdout;
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('installed kernelspec with Jupyter tools', () => {
  it('installs into a prefix that jupyter kernelspec list sees', async () => {
    const prefix = path.join(dir, 'prefix');
    const stdout = installOutput;
    expect(stdout).toContain(`Installed kernelspec javascript in ${prefix}/share/jupyter/kernels/javascript`);
    expect(stdout).toContain('Installed kernelspec typescript');
    const spec = JSON.parse(await readFile(path.join(prefix, 'share/jupyter/kernels/javascript/kernel.json'), 'utf8'));
    expect(spec).toMatchObject({ language: 'javascript', interrupt_mode: 'signal' });
    expect(spec.argv).toEqual([
      process.execPath,
      path.join(REPO, 'packages/kernel-js/dist/kernel/main.cjs'),
      '-f',
      '{connection_file}',
      '--language',
      'javascript',
    ]);
    const list = await run(PYTHON, ['-m', 'jupyter_client.kernelspecapp', 'list', '--json'], {
      env: { ...process.env, JUPYTER_PATH: path.join(prefix, 'share/jupyter') },
    });
    const specs = JSON.parse(list.stdout).kernelspecs;
    expect(specs.javascript.resource_dir).toBe(path.join(prefix, 'share/jupyter/kernels/javascript'));
    expect(specs.typescript.spec.display_name).toBe('TypeScript (Node.js)');
  });

  it('runs one execute through BlockingKernelClient, from a directory outside the repo', async () => {
    const prefix = path.join(dir, 'prefix');
    const script = path.join(dir, 'client.py');
    await writeFile(script, CLIENT_SCRIPT);
    const { stdout } = await run(
      PYTHON,
      [script, 'javascript', "const v = [1, 2, 3].map((x) => x * 2); console.log('sum', v.reduce((a, b) => a + b)); v"],
      { cwd: dir, env: { ...process.env, JUPYTER_PATH: path.join(prefix, 'share/jupyter') }, timeout: 90_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').at(-1) as string);
    expect(result.reply).toMatchObject({ status: 'ok', execution_count: 1 });
    const types = result.outputs.map((o: [string, unknown]) => o[0]);
    expect(types).toEqual(['status', 'execute_input', 'stream', 'execute_result', 'status']);
    expect(result.outputs[2][1]).toEqual({ name: 'stdout', text: 'sum 12\n' });
    expect(result.outputs[3][1].data).toEqual({ 'text/plain': '[ 2, 4, 6 ]' });
    expect(result.info.language_info.name).toBe('javascript');
    expect(result.alive).toBe(false);
  });

  it('runs the typescript kernelspec too', async () => {
    const prefix = path.join(dir, 'prefix');
    const { stdout } = await run(PYTHON, [path.join(dir, 'client.py'), 'typescript', 'const n: number = 21;\nn * 2'], {
      cwd: dir,
      env: { ...process.env, JUPYTER_PATH: path.join(prefix, 'share/jupyter') },
      timeout: 90_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1) as string);
    expect(result.reply.status).toBe('ok');
    expect(result.outputs.find((o: [string]) => o[0] === 'execute_result')[1].data).toEqual({ 'text/plain': '42' });
  });

  it('refuses two install locations at once', async () => {
    const failed = await run(process.execPath, [...CLI, '--user', '--prefix', dir], { cwd: REPO }).catch((e) => e);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('Use only one of --user, --sys-prefix and --prefix');
  });

  it('says why when the kernels directory is not writable', async () => {
    const blocked = path.join(dir, 'blocked');
    await writeFile(blocked, 'a file where the prefix directory should be');
    const failed = await run(process.execPath, [...CLI, '--prefix', blocked], { cwd: REPO }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`Cannot write ${blocked}/share/jupyter/kernels/javascript`);
  });
});
