import { tooLarge } from '@nbserve/core';
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { CSP_REPORT_PATH } from '../../auth/paths.js';
import type { NbserveEnv } from '../../env.js';

/** A violation report is well under a kilobyte; anything much bigger is not one. */
export const MAX_CSP_REPORT_BYTES = 16 * 1024;
/** Characters of one report that reach the log. */
const MAX_LOGGED_CHARS = 2000;

/**
 * At most `limit` log lines per `windowMs`: a page in a loop of violations, or a script posting
 * reports, cannot flood the log. What was left out is counted and said with the next line logged.
 */
export class LogBudget {
  #windowStart = Number.NEGATIVE_INFINITY;
  #used = 0;
  #suppressed = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The number of lines left out since the last one logged, or `null` when this one must be left out too. */
  take(): number | null {
    const now = this.now();
    if (now - this.#windowStart >= this.windowMs) {
      this.#windowStart = now;
      this.#used = 0;
    }
    if (this.#used >= this.limit) {
      this.#suppressed++;
      return null;
    }
    this.#used++;
    const suppressed = this.#suppressed;
    this.#suppressed = 0;
    return suppressed;
  }
}

/**
 * A report as one log line: compact JSON (so no line breaks or control characters from the client
 * reach the log), secrets redacted (the page URL in a report may carry `?token=`), cut short.
 */
export function reportLogText(body: string, token: string): string {
  let text: string;
  try {
    text = JSON.stringify(JSON.parse(body));
  } catch {
    text = JSON.stringify(body);
  }
  text = text.replace(/([?&](?:token|_xsrf|password)=)[^&#"\\\s]*/gi, '$1[secret]');
  if (token.length >= 8) text = text.split(token).join('[secret]');
  return text.length > MAX_LOGGED_CHARS ? `${text.slice(0, MAX_LOGGED_CHARS)}… (${text.length} characters)` : text;
}

/**
 * `POST /api/security/csp-report`: browsers report Content-Security-Policy violations of the API
 * policy here (see security-headers.ts). As in jupyter_server it needs a login and no XSRF token,
 * and the report is logged as a warning; here the body is bounded, the line sanitized and the
 * lines per minute limited. Answers 204.
 */
export function registerCspReportRoutes(app: Hono<NbserveEnv>, budget = new LogBudget(10, 60_000)): void {
  const limit = bodyLimit({
    maxSize: MAX_CSP_REPORT_BYTES,
    onError: () => {
      throw tooLarge(`A CSP report is larger than the limit of ${MAX_CSP_REPORT_BYTES} bytes`);
    },
  });
  app.post(CSP_REPORT_PATH, limit, async (c) => {
    const body = new TextDecoder().decode(await c.req.arrayBuffer());
    const suppressed = budget.take();
    if (suppressed !== null) {
      const { logger, token } = c.get('services').options;
      const more = suppressed > 0 ? ` (${suppressed} more reports were not logged)` : '';
      logger.warn(`Content security violation: ${reportLogText(body, token)}${more}`);
    }
    return c.body(null, 204);
  });
}
