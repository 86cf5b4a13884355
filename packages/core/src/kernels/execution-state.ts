import { peekMsgType } from '../protocol/json-parts.js';
import type { ExecutionState } from '../protocol/types.js';

/**
 * Parent request types whose busy/idle changes the reported execution_state (jupyter_server's
 * rule): the server's own kernel_info nudges and control traffic do not make a kernel "busy".
 */
const UNTRACKED_PARENTS = new Set([
  'comm_info_request',
  'kernel_info_request',
  'shutdown_request',
  'interrupt_request',
  'debug_request',
]);

/**
 * The execution_state the server reports after a ready kernel published `reported` for a request
 * whose header is `parentHeader`: a first status ends `starting`; a restart or death is settled
 * by the lifecycle, not by statuses.
 */
export function nextExecutionState(
  current: ExecutionState,
  reported: string,
  parentHeader: Uint8Array,
): ExecutionState {
  if (current === 'starting') return 'idle';
  if (current === 'restarting' || current === 'dead') return current;
  if (UNTRACKED_PARENTS.has(peekMsgType(parentHeader))) return current;
  return reported === 'busy' || reported === 'idle' || reported === 'starting' ? reported : current;
}
