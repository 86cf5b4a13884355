import { toast } from '../lib/dom.js';
import type { KernelConnection } from './kernel.js';
import type { Pager } from './pager.js';

/** How long completion and inspection wait for the kernel. */
const ASK_TIMEOUT_MS = 5000;

/** Jupyter counts cursor positions in Unicode code points; JS strings in UTF-16 units. */
function toCodePoints(text: string, utf16: number): number {
  return [...text.slice(0, utf16)].length;
}

function fromCodePoints(text: string, points: number): number {
  let units = 0;
  let seen = 0;
  for (const ch of text) {
    if (seen >= points) break;
    units += ch.length;
    seen++;
  }
  return units;
}

/** Asks the kernel to complete `code` at `cursor` (Tab); undefined when it cannot or does not answer. */
export async function complete(
  kernel: Pick<KernelConnection, 'ask'>,
  code: string,
  cursor: number,
): Promise<{ from: number; to: number; matches: string[] } | undefined> {
  try {
    const reply = await kernel.ask(
      'complete_request',
      { code, cursor_pos: toCodePoints(code, cursor) },
      ASK_TIMEOUT_MS,
    );
    if (reply.status !== 'ok') return undefined;
    const matches = Array.isArray(reply.matches) ? (reply.matches as string[]) : [];
    return {
      from: fromCodePoints(code, Number(reply.cursor_start ?? cursor)),
      to: fromCodePoints(code, Number(reply.cursor_end ?? cursor)),
      matches,
    };
  } catch {
    return undefined;
  }
}

/** Shows the kernel's documentation of the name at `cursor` in the pager (Shift-Tab). */
export function inspect(
  kernel: Pick<KernelConnection, 'ask'>,
  pager: Pick<Pager, 'show'>,
  code: string,
  cursor: number,
): void {
  void kernel
    .ask('inspect_request', { code, cursor_pos: toCodePoints(code, cursor), detail_level: 0 }, ASK_TIMEOUT_MS)
    .then((reply) => {
      const data = (reply.data ?? {}) as Record<string, string>;
      if (reply.status === 'ok' && reply.found && data['text/plain']) pager.show(data['text/plain']);
      else toast('No documentation found');
    })
    .catch(() => toast('The kernel did not answer the inspection request', 'error'));
}
