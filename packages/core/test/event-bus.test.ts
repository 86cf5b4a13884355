import { describe, expect, it } from 'vitest';
import { CONTENTS_EVENT_SCHEMA, type ContentsChange, EventBus, type ServerEvent } from '../src/index.js';

describe('EventBus', () => {
  it('sends a contents event to subscribers as on the wire, and with its detail to onContents listeners', () => {
    const bus = new EventBus();
    const wire: ServerEvent[] = [];
    const changes: ContentsChange[] = [];
    bus.subscribe((event) => wire.push(event));
    const stop = bus.onContents((change) => changes.push(change));
    expect(bus.listenerCount).toBe(1); // the WebSockets' count: onContents listeners are not subscribers

    bus.emitContents('copy', 'b.txt', 'a.txt', { type: 'file', size: 3 });
    bus.emitContents('upload', 'c.bin', undefined, { type: 'file', size: 2, format: 'base64', chunk: 1 });
    bus.emitContents('delete', 'b.txt');
    expect(wire).toEqual([
      { schema_id: CONTENTS_EVENT_SCHEMA, action: 'copy', path: 'b.txt', source_path: 'a.txt' },
      { schema_id: CONTENTS_EVENT_SCHEMA, action: 'upload', path: 'c.bin' },
      { schema_id: CONTENTS_EVENT_SCHEMA, action: 'delete', path: 'b.txt' },
    ]);
    expect(changes).toEqual([
      { action: 'copy', path: 'b.txt', sourcePath: 'a.txt', type: 'file', size: 3 },
      { action: 'upload', path: 'c.bin', type: 'file', size: 2, format: 'base64', chunk: 1 },
      { action: 'delete', path: 'b.txt' },
    ]);

    stop();
    bus.emitContents('get', 'c.bin');
    expect(changes).toHaveLength(3);
    expect(wire).toHaveLength(4);
  });

  it('a listener that throws stops neither the others nor the emitter', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.onContents(() => {
      throw new Error('broken listener');
    });
    bus.onContents((change) => seen.push(`change ${change.path}`));
    bus.subscribe(() => {
      throw new Error('broken subscriber');
    });
    bus.subscribe((event) => seen.push(`event ${String(event.path)}`));
    expect(() => bus.emitContents('save', 'x.txt')).not.toThrow();
    expect(seen).toEqual(['change x.txt', 'event x.txt']);
  });
});
