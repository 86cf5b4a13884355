import { protocol, type SessionManager } from '@nbserve/core';
import type { Actor } from './actor.js';
import type { Auditor } from './auditor.js';

/** What a kernel WebSocket hands over for every message a client sends on the shell channel. */
export type ExecuteListener = (kernelId: string, actor: Actor, raw: protocol.RawMessage) => void;

/**
 * Records each `execute_request` a client sends: its kernel, session, message id, the notebook
 * path of the kernel's session (`null` for a kernel without one) and the code. Other message
 * types cost one scan of the header.
 */
export function executeRecorder(audit: Auditor, sessions: SessionManager): ExecuteListener {
  return (kernelId, actor, raw) => {
    if (protocol.peekMsgType(raw.header) !== 'execute_request') return;
    let header: Record<string, unknown>;
    let content: Record<string, unknown> | null;
    try {
      header = protocol.parsePart(raw.header) as Record<string, unknown>;
      content = protocol.parsePart(raw.content) as Record<string, unknown> | null;
    } catch {
      return; // not JSON: the kernel drops it too
    }
    const code = typeof content?.code === 'string' ? content.code : '';
    const fields = {
      kernel_id: kernelId,
      session: typeof header.session === 'string' ? header.session : null,
      msg_id: typeof header.msg_id === 'string' ? header.msg_id : null,
      code,
    };
    // The line is written once the path is known; `time` is then that of the lookup, microseconds on.
    void sessions.list().then(
      (all) => audit.execute(actor, { ...fields, path: all.find((s) => s.kernel?.id === kernelId)?.path ?? null }),
      () => audit.execute(actor, { ...fields, path: null }),
    );
  };
}
