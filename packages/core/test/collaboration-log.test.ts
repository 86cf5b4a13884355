import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as encoding from 'lib0/encoding';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { waitFor } from '../../../testing/wait.js';
import { CollaborationManager, ContentsManager, FileSystemStore, type RoomClient } from '../src/index.js';

/** A client without a network: what the room sends is recorded, what it receives is fed directly. */
function fakeClient(): RoomClient & { sent: Uint8Array[]; closed: Array<[number, string]> } {
  const sent: Uint8Array[] = [];
  const closed: Array<[number, string]> = [];
  return {
    sent,
    closed,
    bufferedAmount: 0,
    send: (data) => sent.push(data),
    close: (code, reason) => closed.push([code, reason]),
  };
}

function updateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0); // sync
  encoding.writeVarUint(encoder, 2); // update
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

describe('CollaborationManager: the update log', () => {
  let dir: string;
  let root: string;
  let contents: ContentsManager;

  beforeEach(async () => {
    dir = await makeTempDir();
    root = path.join(dir, 'root');
    await fs.mkdir(root);
    contents = new ContentsManager({ store: new FileSystemStore(root) });
    await fs.writeFile(path.join(root, 'nb.ipynb'), JSON.stringify(v4Notebook([v4CodeCell('x = 1')])));
  });

  afterEach(async () => {
    await removeDir(dir);
  });

  const manager = () =>
    new CollaborationManager({ contents, dataDir: path.join(dir, 'data'), saveDelayMs: 600_000, pollMs: 0 });

  it('an edit relayed before a crash (no save, no close) is back after a restart, then saved', async () => {
    const crashed = manager();
    const { fileId } = await crashed.session('nb.ipynb', 'json', 'notebook');
    const roomId = `json:notebook:${fileId}`;
    const room = await crashed.room(roomId);
    const [editor, watcher] = [fakeClient(), fakeClient()];
    const editing = room.connect(editor);
    room.connect(watcher);
    // The editor's replica: the room's state, then one edit.
    const replica = new Y.Doc();
    Y.applyUpdate(replica, Y.encodeStateAsUpdate(room.document.ydoc));
    let edit: Uint8Array | undefined;
    replica.on('update', (update: Uint8Array) => {
      edit = update;
    });
    const cell = replica.getArray<Y.Map<unknown>>('cells').get(0);
    (cell.get('source') as Y.Text).insert(0, '# logged\n');
    const before = watcher.sent.length;
    editing.receive(updateMessage(edit as Uint8Array));
    expect(watcher.sent.length).toBe(before + 1); // relayed, so it must survive
    expect(await fs.readFile(path.join(root, 'nb.ipynb'), 'utf8')).not.toContain('# logged');

    // A new process over the same directories: the crashed one is never closed.
    const restarted = manager();
    const again = await restarted.room(roomId);
    expect(again.document.notebook?.getCell(0).getSource()).toBe('# logged\nx = 1');
    await restarted.close(); // the restarted room knew it had unsaved edits
    const saved = JSON.parse(await fs.readFile(path.join(root, 'nb.ipynb'), 'utf8'));
    expect([saved.cells[0].source].flat().join('')).toBe('# logged\nx = 1');
  });

  it('a file changed while the server was down wins over the log', async () => {
    const first = manager();
    const { fileId } = await first.session('nb.ipynb', 'json', 'notebook');
    await first.room(`json:notebook:${fileId}`);
    await first.close();
    await fs.writeFile(path.join(root, 'nb.ipynb'), JSON.stringify(v4Notebook([v4CodeCell('from outside')])));
    const second = manager();
    const room = await second.room(`json:notebook:${fileId}`);
    expect(room.document.notebook?.getCell(0).getSource()).toBe('from outside');
    await second.close();
  });

  it('drops an idle room from memory and reloads it from the log', async () => {
    const collab = new CollaborationManager({ contents, dataDir: path.join(dir, 'data'), idleMs: 50, pollMs: 0 });
    const { fileId } = await collab.session('nb.ipynb', 'json', 'notebook');
    const room = await collab.room(`json:notebook:${fileId}`);
    room.connect(fakeClient()).disconnect();
    await waitFor(() => collab.openRooms === 0, { what: 'the drop' });
    expect(room.closed).toBe(true);
    const reopened = await collab.room(`json:notebook:${fileId}`);
    expect(reopened).not.toBe(room);
    expect(reopened.document.notebook?.getCell(0).getSource()).toBe('x = 1');
    await collab.close();
  });
});
