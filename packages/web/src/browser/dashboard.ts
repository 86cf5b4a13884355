import './../styles/base.css';
import './../styles/dashboard.css';
import { firstPageRoute } from '../shared/first-page.js';
import { api, type ContentsModel, type KernelSpecs } from './lib/api.js';
import { pageConfig } from './lib/config.js';
import { toast } from './lib/dom.js';

/**
 * The dashboard page (`/tree/<path>`). The server wrote the folder's top rows into the HTML and
 * its first page into the config; where it could not list the folder, the page asks the API now,
 * before the rest of the dashboard's code is even loaded (and shows the API's error).
 *
 * The server's rows are shown first: nothing else is done — no request, no parsing — until they
 * are painted (or 500 ms have passed, as in a background tab, which paints nothing) and the page
 * is idle; on 2 busy cores any of it would hold back that first frame. The dashboard then replaces
 * them with the same rows, live.
 */
const serverRows = document.querySelector('.vlist .row') !== null;

function whenPainted(): Promise<void> {
  return new Promise<void>((resolve) => {
    const idle = () =>
      typeof requestIdleCallback === 'function' ? requestIdleCallback(() => resolve(), { timeout: 100 }) : resolve();
    const timer = setTimeout(idle, 500);
    try {
      new PerformanceObserver((list, observer) => {
        if (list.getEntries().length === 0) return;
        observer.disconnect();
        clearTimeout(timer);
        idle();
      }).observe({ type: 'paint', buffered: true });
    } catch {
      // no paint timing here: the timer starts the dashboard
    }
  });
}

function start(): void {
  const config = pageConfig();
  const firstPage =
    typeof config.firstPage === 'object' && config.firstPage !== null
      ? Promise.resolve(config.firstPage as ContentsModel)
      : api<ContentsModel>(firstPageRoute(config.path));
  firstPage.catch(() => undefined); // reported by the Files tab
  const specs = api<KernelSpecs>('api/kernelspecs').catch(() => undefined);
  import('./dashboard/app.js')
    .then(({ startDashboard }) => startDashboard(firstPage, specs))
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      document.body.dataset.error = message;
      toast(`Could not open the dashboard: ${message}`, 'error');
    });
}

if (serverRows) void whenPainted().then(start);
else start();
