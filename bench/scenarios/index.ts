import type { Scenario } from '../lib/scenario.js';
import { coldOpenScenario } from './cold-open.js';
import { collaborationScenario } from './collaboration.js';
import { bigNotebookScenario, concurrencyScenario, listingScenario } from './contents.js';
import { dashboardScenario } from './dashboard.js';
import { executeJsonScenario } from './execute-json.js';
import { firstPaintScenario } from './first-paint.js';
import { fanoutScenario, floodScenario, iopubScenario } from './iopub.js';
import { jupyterlabScenario } from './jupyterlab.js';
import { kernelJsScenario } from './kernel-js.js';
import { kernelPoolScenario } from './kernel-pool.js';
import { executeScenario, kernelStartScenario, manyKernelsScenario } from './kernels.js';
import { startScenario } from './start.js';
import { terminalEchoScenario, terminalThroughputScenario } from './terminals.js';

/** Every scenario, in the order a full run executes them. */
export const SCENARIOS: Scenario[] = [
  startScenario,
  listingScenario,
  concurrencyScenario,
  bigNotebookScenario,
  kernelStartScenario,
  executeScenario,
  iopubScenario,
  fanoutScenario,
  floodScenario,
  manyKernelsScenario,
  kernelJsScenario,
  terminalEchoScenario,
  terminalThroughputScenario,
  firstPaintScenario,
  dashboardScenario,
  kernelPoolScenario,
  coldOpenScenario,
  executeJsonScenario,
  collaborationScenario,
  jupyterlabScenario,
];
