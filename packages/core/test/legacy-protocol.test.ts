import { describe, expect, it } from 'vitest';
import {
  adaptV4ToV5,
  adaptV5ToV4,
  decodeLegacyFrame,
  encodeLegacyFrame,
  isNbserveError,
  type protocol,
} from '../src/index.js';

const header = (msg_type: string) => ({
  msg_id: `id-${msg_type}`,
  session: 's',
  username: 'u',
  date: '2024-05-01T12:00:00.000Z',
  msg_type,
  version: '5.3',
});

function v5(
  msg_type: string,
  content: Record<string, unknown>,
  parentType = 'execute_request',
): protocol.JupyterMessage {
  return { header: header(msg_type), parent_header: header(parentType), metadata: {}, content, buffers: [] };
}

describe('v5 -> v4 (kernel to old frontend)', () => {
  it('renames execute_result/execute_input/error and drops header versions', () => {
    const out = adaptV5ToV4(v5('execute_result', { execution_count: 1, data: { 'text/plain': '2' }, metadata: {} }));
    expect(out.header.msg_type).toBe('pyout');
    expect(out.header).not.toHaveProperty('version');
    expect(out.parent_header).not.toHaveProperty('version');
    expect(out.content).toEqual({ execution_count: 1, data: { 'text/plain': '2' }, metadata: {} });
    expect(adaptV5ToV4(v5('execute_input', { code: 'x', execution_count: 1 })).header.msg_type).toBe('pyin');
    expect(adaptV5ToV4(v5('error', { ename: 'E', evalue: 'v', traceback: [] })).header.msg_type).toBe('pyerr');
  });

  it('adapts stream, display_data, kernel_info_reply, complete_reply, execute_reply, input_request', () => {
    expect(adaptV5ToV4(v5('stream', { name: 'stdout', text: 'hi\n' })).content).toEqual({
      name: 'stdout',
      data: 'hi\n',
    });
    expect(adaptV5ToV4(v5('display_data', { data: { 'application/json': { a: 1 } }, metadata: {} })).content).toEqual({
      source: 'display',
      data: { 'application/json': '{"a":1}' },
      metadata: {},
    });
    const info = adaptV5ToV4(
      v5('kernel_info_reply', {
        protocol_version: '5.3',
        implementation: 'ipython',
        implementation_version: '8.5.0',
        language_info: { name: 'python', version: '3.11.2' },
      }),
    );
    expect(info.content).toEqual({
      protocol_version: [5, 3],
      ipython_version: [8, 5, 0],
      language: 'python',
      language_version: [3, 11, 2],
    });
    expect(
      adaptV5ToV4(
        v5('complete_reply', {
          matches: ['print', 'prin'],
          cursor_start: 0,
          cursor_end: 3,
          metadata: {},
          status: 'ok',
        }),
      ).content,
    ).toEqual({
      matches: ['print', 'prin'],
      matched_text: 'pri',
      status: 'ok',
    });
    expect(adaptV5ToV4(v5('execute_reply', { status: 'ok', execution_count: 1 })).content).toMatchObject({
      user_variables: {},
    });
    expect(adaptV5ToV4(v5('input_request', { prompt: '>', password: false })).content).toEqual({ prompt: '>' });
    expect(adaptV5ToV4(v5('inspect_reply', { status: 'ok', found: true, data: {} })).header.msg_type).toBe(
      'object_info_reply',
    );
  });
});

describe('v4 -> v5 (old frontend to kernel)', () => {
  const v4 = (msg_type: string, content: Record<string, unknown>): protocol.JupyterMessage => ({
    header: { ...header(msg_type), version: '' },
    parent_header: {},
    metadata: {},
    content,
    buffers: [],
  });

  it('execute_request: user_variables become user_expressions, header gets a version', () => {
    const out = adaptV4ToV5(
      v4('execute_request', { code: '1+1', silent: false, user_variables: ['a'], user_expressions: {} }),
      '5.3',
    );
    expect(out.header.version).toBe('5.3');
    expect(out.parent_header).toEqual({});
    expect(out.content).toEqual({ code: '1+1', silent: false, user_expressions: { a: 'a' } });
  });

  it('object_info_request -> inspect_request, complete_request line -> code', () => {
    const inspect = adaptV4ToV5(v4('object_info_request', { oname: 'os.path', detail_level: 1 }), '5.3');
    expect(inspect.header.msg_type).toBe('inspect_request');
    expect(inspect.content).toEqual({ code: 'os.path', cursor_pos: 7, detail_level: 1 });
    const complete = adaptV4ToV5(v4('complete_request', { text: '', line: 'pri', block: null, cursor_pos: 3 }), '5.3');
    expect(complete.content).toEqual({ code: 'pri', cursor_pos: 3 });
  });
});

describe('legacy framing', () => {
  it('encodes without channel, buffers or dates', () => {
    const text = encodeLegacyFrame(v5('status', { execution_state: 'idle' }));
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed).sort()).toEqual(['content', 'header', 'metadata', 'parent_header']);
    expect(parsed.header).not.toHaveProperty('date');
    expect(parsed.parent_header).not.toHaveProperty('date');
  });

  it('decodes 0.13 frames without metadata and refuses non-messages', () => {
    const msg = decodeLegacyFrame(
      JSON.stringify({
        header: { msg_id: 'a', msg_type: 'execute_request', session: 's', username: 'u' },
        parent_header: {},
        content: { code: 'x' },
      }),
    );
    expect(msg.metadata).toEqual({});
    expect(msg.content).toEqual({ code: 'x' });
    for (const bad of ['nope', '{}', '{"header":{"msg_id":"a"}}', 'username-localhost=abc']) {
      const error = (() => {
        try {
          decodeLegacyFrame(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(isNbserveError(error) && error.kind).toBe('bad-request');
    }
  });
});
