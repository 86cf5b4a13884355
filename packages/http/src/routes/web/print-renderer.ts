import type { renderPrintPage } from '@nbserve/web/print';

let loading: Promise<typeof renderPrintPage> | undefined;

/**
 * The print renderer, loaded on the first print request: it pulls in KaTeX and marked, which no
 * other route needs, so the bundled server does not parse or initialise them at start-up.
 */
export function printRenderer(): Promise<typeof renderPrintPage> {
  loading ??= import('@nbserve/web/print').then((module) => module.renderPrintPage);
  return loading;
}
