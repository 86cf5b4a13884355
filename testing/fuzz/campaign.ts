import { requestOverSocket } from '../http-client.js';
import { ANONYMOUS } from './credentials.js';
import type { FuzzServer } from './fuzz-server.js';
import { type Answer, checkAnswer } from './invariants.js';
import { Liveness } from './liveness.js';
import { describeRequest, makeRequest } from './request.js';
import { Rng } from './rng.js';
import { changes, snapshot } from './snapshot.js';
import { describeSocket, planSocket, runSocket } from './ws-session.js';

/**
 * The root is laid out afresh this often, so deletes and renames leave something to hit; a fuzz
 * kernel or session a request ended comes back then too (not at once: a kernel start costs a second).
 */
const RESET_EVERY = 50;

/** What one seed did, and the first thing that went wrong (the run stops there). */
export interface CampaignResult {
  seed: number;
  steps: number;
  http: number;
  sockets: number;
  statuses: Record<string, number>;
  failure: { step: number; what: string; problems: string[] } | undefined;
}

/** What one step sent and how it went. */
interface Step {
  what: string;
  /** How the answer is counted in the statistics: the status, or how a socket ended. */
  outcome: string;
  problems: string[];
  /** Refused (4xx), or sent without any valid credential: it must have changed nothing. */
  refused: boolean;
}

async function httpStep(rng: Rng, fz: FuzzServer): Promise<Step> {
  const { server } = fz;
  const request = makeRequest(rng, fz.routes, server.prefix, fz.targets, fz.secrets, fz.host);
  const step: Step = { what: describeRequest(request), outcome: 'no answer', problems: [], refused: false };
  let answer: Answer;
  try {
    const response = await requestOverSocket(fz.port, request.target, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: new Uint8Array(request.body) }),
    });
    answer = { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  } catch (error) {
    step.problems.push(`no answer: ${(error as Error).message}`);
    return step;
  }
  step.outcome = String(answer.status);
  step.problems.push(...checkAnswer(answer, server.token, request.target.includes(server.token)));
  step.refused = (answer.status >= 400 && answer.status < 500) || ANONYMOUS.has(request.credential);
  return step;
}

async function socketStep(rng: Rng, fz: FuzzServer): Promise<Step> {
  const plan = planSocket(rng, fz.server.prefix, fz.targets.kernelId, fz.secrets, fz.host);
  const outcome = await runSocket(fz.port, plan);
  const step: Step = {
    what: describeSocket(plan),
    outcome: `ws ${outcome.opened ? (outcome.closeCode ?? 'open') : (outcome.upgradeStatus ?? outcome.error)}`,
    problems: [],
    // The older sockets authenticate by their first frame, which may carry valid credentials.
    refused: (outcome.upgradeStatus ?? 0) >= 400 || (plan.kind !== 'legacy' && ANONYMOUS.has(plan.credential)),
  };
  if ((outcome.upgradeStatus ?? 0) >= 500) step.problems.push(`upgrade answered ${outcome.upgradeStatus}`);
  if (outcome.closeCode === 1011 && /internal/i.test(outcome.closeReason)) {
    step.problems.push(`closed 1011 ${outcome.closeReason}`);
  }
  return step;
}

/**
 * Runs `requests` steps of one seed: mostly HTTP requests, sometimes a WebSocket conversation.
 * After each: the answer's own checks, the root unchanged when the request was refused or
 * anonymous, the sentinel directory untouched, and the server still answering `/api`.
 */
export async function runCampaign(fz: FuzzServer, seed: number, requests: number): Promise<CampaignResult> {
  const rng = new Rng(seed);
  const { server } = fz;
  const result: CampaignResult = { seed, steps: 0, http: 0, sockets: 0, statuses: {}, failure: undefined };
  const sentinelBefore = snapshot(fz.sentinelDir);
  let rootBefore = snapshot(server.root);
  const liveness = new Liveness(fz.port, server.path('api'), server.token);
  try {
    for (let n = 1; n <= requests; n++) {
      result.steps = n;
      if (n % RESET_EVERY === 0) {
        await fz.reset();
        rootBefore = snapshot(server.root);
      }
      const socket = rng.chance(0.15);
      const step = socket ? await socketStep(rng, fz) : await httpStep(rng, fz);
      if (socket) result.sockets++;
      else result.http++;
      result.statuses[step.outcome] = (result.statuses[step.outcome] ?? 0) + 1;
      await fz.tidyKernels();
      const rootAfter = snapshot(server.root);
      const changed = changes(rootBefore, rootAfter);
      if (step.refused && changed.length > 0) {
        step.problems.push(`a refused request changed the root: ${changed.slice(0, 10).join(' ')}`);
      }
      rootBefore = rootAfter;
      const outside = changes(sentinelBefore, snapshot(fz.sentinelDir));
      if (outside.length > 0) step.problems.push(`files outside the root changed: ${outside.slice(0, 10).join(' ')}`);
      const alive = await liveness.probe();
      if (alive !== 200) step.problems.push(`GET /api afterwards: ${alive instanceof Error ? alive.message : alive}`);
      if (step.problems.length > 0) {
        result.failure = { step: n, what: step.what, problems: step.problems };
        break;
      }
    }
  } finally {
    liveness.close();
  }
  return result;
}
