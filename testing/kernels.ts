import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  type KernelClient,
  KernelManager,
  type KernelManagerOptions,
  KernelSpecManager,
  LocalProvisioner,
  PidRegistry,
  protocol,
} from '@nbserve/core';
import { writeFloodKernelSpec } from './flood-kernelspec.js';
import { makeTempDir } from './temp.js';
import { within } from './wait.js';

/** A KernelManager over real temp dirs, the Debian python3 kernelspec and the flood kernels. */
export async function createKernelHarness(overrides: Partial<KernelManagerOptions> = {}) {
  const base = await makeTempDir('nbserve-kernels-');
  const root = path.join(base, 'root');
  const runtimeDir = path.join(base, 'runtime');
  const kernelsDir = path.join(base, 'share', 'kernels');
  await writeFloodKernelSpec(kernelsDir, 'flood');
  await writeFloodKernelSpec(kernelsDir, 'mute', { extraArgs: ['--mute'] });
  await writeFloodKernelSpec(kernelsDir, 'flood-signal', { interruptMode: 'signal' });
  await writeFloodKernelSpec(kernelsDir, 'dies', { extraArgs: ['--die-after', '5000'] });
  await mkdir(root, { recursive: true });
  const kernelspecs = new KernelSpecManager({ dirs: [kernelsDir, '/usr/share/jupyter/kernels'] });
  const registry = new PidRegistry(runtimeDir);
  const warnings: string[] = [];
  const manager = new KernelManager({
    kernelspecs,
    provisioner: new LocalProvisioner({ runtimeDir, registry }),
    rootDir: root,
    warn: (m) => warnings.push(m),
    ...overrides,
  });
  return {
    base,
    root,
    runtimeDir,
    kernelsDir,
    kernelspecs,
    registry,
    manager,
    warnings,
    async dispose() {
      await manager.shutdownAll();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** Sends a request through a client and collects replies and iopub messages for it until idle. */
export async function runOnClient(
  kernel: { onIopub: (l: (raw: protocol.RawMessage, t: string) => void) => () => void; session: string },
  client: KernelClient,
  msgType: string,
  content: object,
  options: { channel?: 'shell' | 'control'; onStdin?: (msg: protocol.JupyterMessage) => void; timeoutMs?: number } = {},
): Promise<{ reply: protocol.JupyterMessage; iopub: protocol.JupyterMessage[] }> {
  const full =
    msgType === 'execute_request'
      ? {
          silent: false,
          store_history: true,
          user_expressions: {},
          allow_stdin: false,
          stop_on_error: true,
          ...content,
        }
      : content;
  const request = protocol.createMessage(msgType, full, { session: 'test-client' });
  const iopub: protocol.JupyterMessage[] = [];
  let reply: protocol.JupyterMessage | undefined;
  let idle = false;
  let off = () => {};
  const answered = new Promise<{ reply: protocol.JupyterMessage; iopub: protocol.JupyterMessage[] }>((resolve) => {
    const done = () => {
      if (reply && idle) resolve({ reply, iopub });
    };
    off = kernel.onIopub((raw) => {
      const msg = protocol.fromRaw(raw);
      if ((msg.parent_header as protocol.MessageHeader).msg_id !== request.header.msg_id) return;
      iopub.push(msg);
      if (msg.header.msg_type === 'status' && msg.content.execution_state === 'idle') idle = true;
      done();
    });
    client.onMessage = (channel, raw) => {
      const msg = protocol.fromRaw(raw);
      if (channel === 'stdin') options.onStdin?.(msg);
      else if ((msg.parent_header as protocol.MessageHeader).msg_id === request.header.msg_id) reply = msg;
      done();
    };
    client.send(options.channel ?? 'shell', protocol.toRaw(request));
  });
  try {
    return await within(answered, options.timeoutMs ?? 30_000, `the answer to ${msgType}`);
  } finally {
    off();
  }
}
