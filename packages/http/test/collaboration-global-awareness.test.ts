/**
 * `JupyterLab:globalAwareness`, the presence room JupyterLab's collaboration extension joins at
 * start (jupyter-collaboration's transient room): y-websocket providers see each other's awareness
 * state, lose it when its client leaves, and the room keeps no document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

const ROOM = 'JupyterLab:globalAwareness';

describe('the JupyterLab:globalAwareness room', () => {
  let s: TestServer;
  const providers: WebsocketProvider[] = [];
  const join = async () => {
    const provider = new WebsocketProvider(`${s.url.replace(/^http/, 'ws')}api/collaboration/room`, ROOM, new Y.Doc(), {
      WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
      params: { token: TOKEN },
      disableBc: true,
      maxBackoffTime: 500,
    });
    providers.push(provider);
    await waitFor(() => provider.synced, { what: 'sync of the presence room' });
    return provider;
  };

  beforeAll(async () => {
    s = await startServer({ baseUrl: '/a%40b/' });
  });
  afterAll(async () => {
    for (const provider of providers) provider.destroy();
    await s.close();
  });

  it('relays who is here, forgets a client that leaves, and keeps no document', async () => {
    const alice = await join();
    const bob = await join();
    alice.awareness.setLocalStateField('user', { name: 'Alice' });
    bob.awareness.setLocalStateField('user', { name: 'Bob' });
    // users who said who they are (a provider's own state starts without a user)
    const names = (provider: WebsocketProvider) =>
      [...provider.awareness.getStates().values()]
        .map((state) => (state.user as { name: string } | undefined)?.name)
        .filter((name) => name !== undefined)
        .sort();
    await waitFor(() => names(alice).join() === 'Alice,Bob' && names(bob).join() === 'Alice,Bob', {
      what: 'both users on both clients',
    });

    // a document update is ignored: a client joining later gets an empty document
    alice.doc.getText('t').insert(0, 'not stored');
    const carol = await join();
    await waitFor(() => names(carol).join() === 'Alice,Bob', { what: 'the others on a late client' });
    expect(carol.doc.getText('t').toString()).toBe('');

    bob.destroy();
    await waitFor(() => names(alice).join() === 'Alice' && names(carol).join() === 'Alice', {
      what: "Bob's state gone",
    });
  });

  it('answers a plain GET (no upgrade) with a 4xx, not a document error', async () => {
    const response = await s.fetch(`api/collaboration/room/${ROOM}`);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});
