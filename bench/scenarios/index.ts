import type { Scenario } from '../lib/scenario.js';
import { bigNotebookScenario, concurrencyScenario, listingScenario } from './contents.js';
import { startScenario } from './start.js';

/** Every scenario, in the order a full run executes them. */
export const SCENARIOS: Scenario[] = [startScenario, listingScenario, concurrencyScenario, bigNotebookScenario];
