import type { BenchContext } from './context.js';

export type Group = 'server' | 'contents' | 'kernels' | 'kernel-js' | 'terminals' | 'web';

export interface Scenario {
  /** Short id used on the command line (`pnpm bench listing`). */
  name: string;
  group: Group;
  /** One line for the table and docs: what is measured. */
  title: string;
  /** Upper bound for the whole scenario; it is stopped and its processes killed past this. */
  budgetMs: number;
  run(ctx: BenchContext): Promise<void>;
}
