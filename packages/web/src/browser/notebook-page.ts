import './../styles/base.css';
import './../styles/notebook.css';
import 'katex/dist/katex.min.css';
import './../styles/notebook-tools.css';
import './lib/theme.js';
import { getContents } from './lib/api.js';
import { pageConfig } from './lib/config.js';
import { toast } from './lib/dom.js';

/**
 * The notebook page (`/notebooks/<path>`). The notebook is requested before the editor,
 * renderers and kernel code are even loaded, so the big download and the code overlap.
 */
const content = getContents(pageConfig().path, { type: 'notebook', hash: '1' });
content.catch(() => undefined); // reported by start() below

import('./notebook/page-controller.js')
  .then(({ NotebookApp }) => new NotebookApp().start(content))
  .catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    document.body.dataset.error = message;
    toast(`Could not open the notebook: ${message}`, 'error');
  });
