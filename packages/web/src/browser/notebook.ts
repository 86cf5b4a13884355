import './../styles/base.css';
import './../styles/notebook.css';
import 'katex/dist/katex.min.css';
import { toast } from './lib/dom.js';
import { NotebookApp } from './notebook/app.js';

/** The notebook page (`/notebooks/<path>`). */
new NotebookApp().start().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  document.body.dataset.error = message;
  toast(`Could not open the notebook: ${message}`, 'error');
});
