import './../styles/base.css';
import './../styles/dashboard.css';
import { firstPageRoute } from '../shared/first-page.js';
import { api, type ContentsModel, type KernelSpecs } from './lib/api.js';
import { pageConfig } from './lib/config.js';
import { toast } from './lib/dom.js';

/**
 * The dashboard page (`/tree/<path>`). The folder's first page is requested before the rest of
 * the dashboard's code is even loaded: the very URL the HTML preloads, so the browser answers it
 * from the request already under way (or makes it now, where preloads are not honoured).
 */
const firstPage = api<ContentsModel>(firstPageRoute(pageConfig().path));
firstPage.catch(() => undefined); // reported by the Files tab
const specs = api<KernelSpecs>('api/kernelspecs').catch(() => undefined);

import('./dashboard/app.js')
  .then(({ startDashboard }) => startDashboard(firstPage, specs))
  .catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    document.body.dataset.error = message;
    toast(`Could not open the dashboard: ${message}`, 'error');
  });
