import { describe, expect, it } from 'vitest';
import { parseLegacyCredentials } from '../src/ws/legacy-credentials.js';

describe('first-frame credentials of old kernel sockets', () => {
  it('reads 1.x/2.x "<session>:<cookies>" and 0.13 bare cookie strings', () => {
    const v1 = parseLegacyCredentials('5f2c-ab:username-localhost-8888="a.b.c"; _xsrf=2|x|y|1');
    expect(v1?.sessionId).toBe('5f2c-ab');
    expect(v1?.cookies.get('username-localhost-8888')).toBe('a.b.c');
    expect(v1?.cookies.get('_xsrf')).toBe('2|x|y|1');
    const v013 = parseLegacyCredentials('username=abc; theme=dark');
    expect(v013?.sessionId).toBeUndefined();
    expect(v013?.cookies.get('username')).toBe('abc');
    const empty = parseLegacyCredentials('session-1:');
    expect(empty?.sessionId).toBe('session-1');
    expect(empty?.cookies.size).toBe(0);
  });

  it('refuses frames that are not credentials', () => {
    for (const frame of [
      '{"header":{"msg_id":"1","msg_type":"execute_request"}}',
      '[1,2]',
      'just some text',
      'a=b; no-equals-here',
      'bad name=x',
      `s:${'x='.repeat(5000)}`,
      'line\nbreak=1',
    ]) {
      expect(parseLegacyCredentials(frame), frame.slice(0, 40)).toBeUndefined();
    }
  });
});
