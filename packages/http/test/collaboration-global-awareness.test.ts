/**
 * jupyter-collaboration's `JupyterLab:globalAwareness` room: each JupyterLab page announces its
 * user there and sees who else is here; a page that leaves disappears for the others.
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

const ROOM = 'api/collaboration/room/JupyterLab:globalAwareness';

/** A page's awareness provider, as @jupyter/docprovider's WebSocketAwarenessProvider speaks. */
async function joinGlobalAwareness(s: TestServer, user: string) {
  const awareness = new awarenessProtocol.Awareness(new Y.Doc());
  const ws = new WebSocket(`${s.wsUrl(ROOM)}?token=${TOKEN}`);
  ws.binaryType = 'nodebuffer';
  ws.on('message', (data: Buffer) => {
    const decoder = decoding.createDecoder(new Uint8Array(data));
    if (decoding.readVarUint(decoder) === 1) {
      awarenessProtocol.applyAwarenessUpdate(awareness, decoding.readVarUint8Array(decoder), 'server');
    }
  });
  awareness.on('update', ({ added, updated, removed }: Record<string, number[]>, origin: unknown) => {
    if (origin === 'server' || ws.readyState !== ws.OPEN) return;
    const changed = [...(added ?? []), ...(updated ?? []), ...(removed ?? [])];
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 1);
    encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(awareness, changed));
    ws.send(encoding.toUint8Array(encoder));
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  awareness.setLocalStateField('user', { name: user });
  const names = () =>
    [...awareness.getStates().values()]
      .map((state) => (state.user as { name?: string } | undefined)?.name)
      .filter(Boolean)
      .sort();
  return { ws, awareness, names };
}

describe('the JupyterLab:globalAwareness room', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('shows every page the others, and forgets a page that left', async () => {
    const alice = await joinGlobalAwareness(s, 'alice');
    const bob = await joinGlobalAwareness(s, 'bob');
    await waitFor(() => alice.names().join() === 'alice,bob', { what: 'alice sees bob' });
    await waitFor(() => bob.names().join() === 'alice,bob', { what: 'bob sees alice' });
    bob.ws.close();
    await waitFor(() => alice.names().join() === 'alice', { what: 'bob gone for alice' });
    alice.ws.close();
  });

  it('closes a client that sends garbage with 4400, and needs a login like every room', async () => {
    const ws = new WebSocket(`${s.wsUrl(ROOM)}?token=${TOKEN}`);
    await new Promise((resolve) => ws.once('open', resolve));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(Buffer.from([0xff, 0xff, 0xff]));
    expect(await closed).toBe(4400);
    const anonymous = new WebSocket(s.wsUrl(ROOM));
    await expect(
      new Promise((resolve, reject) => {
        anonymous.once('open', resolve);
        anonymous.once('error', reject);
      }),
    ).rejects.toThrow(/403/);
  });
});
