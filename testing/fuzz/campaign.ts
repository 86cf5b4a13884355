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
  for (let step = 1; step <= requests; step++) {
    result.steps = step;
    if (step % RESET_EVERY === 0) {
      await fz.reset();
      rootBefore = snapshot(server.root);
    }
    const problems: string[] = [];
    const t0 = Date.now();
    let what: string;
    let refused = false;
    if (rng.chance(0.15)) {
      result.sockets++;
      const plan = planSocket(rng, server.prefix, fz.targets.kernelId, fz.secrets, fz.host);
      what = describeSocket(plan);
      const outcome = await runSocket(fz.port, plan);
      const key = outcome.opened ? `ws ${outcome.closeCode ?? 'open'}` : `ws ${outcome.upgradeStatus ?? outcome.error}`;
      result.statuses[key] = (result.statuses[key] ?? 0) + 1;
      if ((outcome.upgradeStatus ?? 0) >= 500) problems.push(`upgrade answered ${outcome.upgradeStatus}`);
      if (outcome.closeCode === 1011 && /internal/i.test(outcome.closeReason))
        problems.push(`closed 1011 ${outcome.closeReason}`);
      refused = outcome.upgradeStatus !== undefined && outcome.upgradeStatus >= 400;
      if (ANONYMOUS.has(plan.credential)) refused = true;
    } else {
      result.http++;
      const request = makeRequest(rng, fz.routes, server.prefix, fz.targets, fz.secrets, fz.host);
      what = describeRequest(request);
      let answer: Answer | undefined;
      try {
        const response = await requestOverSocket(fz.port, request.target, {
          method: request.method,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: new Uint8Array(request.body) }),
        });
        answer = {
          status: response.status,
          headers: response.headers,
          body: Buffer.from(await response.arrayBuffer()),
        };
      } catch (error) {
        problems.push(`no answer: ${(error as Error).message}`);
      }
      if (answer) {
        result.statuses[answer.status] = (result.statuses[answer.status] ?? 0) + 1;
        problems.push(...checkAnswer(answer, server.token, request.target.includes(server.token)));
        refused = (answer.status >= 400 && answer.status < 500) || ANONYMOUS.has(request.credential);
      }
    }
    const t1 = Date.now();
    await fz.tidyKernels();
    const t2 = Date.now();
    const rootAfter = snapshot(server.root);
    if (refused) {
      const changed = changes(rootBefore, rootAfter);
      if (changed.length > 0) problems.push(`a refused request changed the root: ${changed.slice(0, 10).join(' ')}`);
    }
    rootBefore = rootAfter;
    const outside = changes(sentinelBefore, snapshot(fz.sentinelDir));
    if (outside.length > 0) problems.push(`files outside the root changed: ${outside.slice(0, 10).join(' ')}`);
    const t3 = Date.now();
    const alive = await liveness.probe();
    if (alive !== 200) problems.push(`GET /api afterwards: ${alive instanceof Error ? alive.message : alive}`);
    const t4 = Date.now();
    if (process.env.FUZZ_TIMING)
      console.log(`step ${step} ${t1 - t0} ${t2 - t1} ${t3 - t2} ${t4 - t3} ${what.slice(0, 100)}`);
    if (problems.length > 0) {
      result.failure = { step, what, problems };
      break;
    }
  }
  liveness.close();
  return result;
}
