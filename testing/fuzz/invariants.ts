import { isJsonType, liveMarkup } from './markup.js';

/** What came back for one request, as the checks need it. */
export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** A stack frame or a source path in an answer: internals nbserve must never show. */
const INTERNALS = /\n\s+at [\w.<>]+ \(|node_modules\/|\/packages\/(core|http)\/src\//;

/**
 * Jupyter's one deliberate 5xx for bad input: a session naming a kernel that cannot be started is
 * a 501 with this message, and JupyterLab shows it to pick another kernel.
 */
const KERNEL_UNAVAILABLE = /"message":"The '.*' kernel is not available\. Please pick another suitable kernel instead/;

/**
 * The checks on one answer alone: no 5xx (but the 501 above), no live markup from the request in a body a browser
 * could render or in a header, no stack trace, no token. One exception for the token: a request
 * that carried it in its own query string may be redirected to another path of this server with
 * that query (`/api/notebooks?token=` -> `/api/contents?token=`), or the client could not follow.
 * Returns what is wrong, or [].
 */
export function checkAnswer(answer: Answer, token: string, queryToken: boolean): string[] {
  const problems: string[] = [];
  const text = answer.body.toString('utf8');
  if (answer.status >= 500 && !(answer.status === 501 && KERNEL_UNAVAILABLE.test(text))) {
    problems.push(`status ${answer.status}`);
  }
  if (!isJsonType(answer.headers.get('content-type'))) {
    const live = liveMarkup(text);
    if (live) problems.push(`the body (${answer.headers.get('content-type')}) echoes live markup: ${live}`);
  }
  for (const [name, value] of answer.headers) {
    if (name === 'content-security-policy') continue;
    if (/[<>]/.test(value) && /fz\d/.test(value)) problems.push(`header ${name} echoes markup: ${value.slice(0, 200)}`);
  }
  if (INTERNALS.test(text)) problems.push(`the body shows internals: ${INTERNALS.exec(text)?.[0]}`);
  if (text.includes(token)) problems.push('the body carries the token');
  for (const [name, value] of answer.headers) {
    const ownRedirect = queryToken && name === 'location' && /^\/(?![/\\])/.test(value);
    if (value.includes(token) && !ownRedirect) problems.push(`header ${name} carries the token`);
  }
  return problems;
}
