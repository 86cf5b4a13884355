import type { Browser } from 'playwright-core';
import { launchChromium } from '../../testing/chromium.js';

export { launchChromium };

export interface PaintTiming {
  /** Browser's first-contentful-paint, ms after navigation start. */
  fcp: number;
  /** First notebook cell in the DOM and a frame painted after it. */
  firstCell: number;
  /** Every cell of the notebook in the DOM and a frame painted after it. */
  allCells: number;
  /** 95th percentile of frame intervals while scrolling through the notebook. */
  scrollFrameP95: number;
  scrollFrames: number;
}

/**
 * Opens `url` in a fresh context (cold cache, like a first visit) with the token in a header, and
 * times the notebook's cells appearing, from the performance timeline. Both Notebook 6.4 and
 * nbserve render each cell as an element with class `cell`.
 */
export async function measureNotebookPage(
  browser: Browser,
  url: string,
  token: string,
  cellCount: number,
): Promise<PaintTiming> {
  const context = await browser.newContext({
    extraHTTPHeaders: { authorization: `token ${token}` },
    viewport: { width: 1280, height: 900 },
  });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit', timeout: 60_000 });
    const waitForCells = async (n: number) =>
      (await (
        await page.waitForFunction(
          (count) => (document.querySelectorAll('.cell').length >= count ? performance.now() : false),
          n,
          { polling: 'raf', timeout: 120_000 },
        )
      ).jsonValue()) as number;
    const firstCell = await waitForCells(1);
    const allCells = await waitForCells(cellCount);
    const fcp = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
    );
    const scroll = await page.evaluate(async () => {
      const last = document.querySelectorAll('.cell');
      let el: HTMLElement | null = (last[last.length - 1] as HTMLElement | undefined)?.parentElement ?? null;
      while (el && !(el.scrollHeight > el.clientHeight + 10 && /auto|scroll/.test(getComputedStyle(el).overflowY))) {
        el = el.parentElement;
      }
      const scroller = el ?? (document.scrollingElement as HTMLElement);
      const intervals: number[] = [];
      let previous = performance.now();
      for (let i = 0; i < 120; i++) {
        scroller.scrollTop += scroller.clientHeight * 0.8;
        // a frame, or at most 2 s: a page that stops painting is measured as such, not waited on forever
        await new Promise((resolve) => {
          requestAnimationFrame(resolve);
          setTimeout(resolve, 2000);
        });
        const now = performance.now();
        intervals.push(now - previous);
        previous = now;
        if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
      }
      intervals.sort((a, b) => a - b);
      return {
        p95: intervals[Math.min(intervals.length - 1, Math.floor(intervals.length * 0.95))] ?? Number.NaN,
        frames: intervals.length,
      };
    });
    return { fcp, firstCell, allCells, scrollFrameP95: scroll.p95, scrollFrames: scroll.frames };
  } finally {
    await context.close();
  }
}
