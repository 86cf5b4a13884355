import { join } from 'node:path';
import type { Row, Subject, Target } from './report.js';
import { type ServerHandle, type ServerKind, ServerUnavailable, startServer } from './servers.js';

export interface RowInput {
  metric: string;
  unit: string;
  values: Partial<Record<Subject, number>>;
  targets?: Target[];
  notes?: string[];
  primary?: Subject;
}

/** What every scenario gets: run settings, a place to put figures, and the shared fixture root. */
export class BenchContext {
  readonly rows: Row[] = [];
  readonly unavailable: string[] = [];
  scenario = '';

  constructor(
    readonly quick: boolean,
    /** jupyter_server 1.23 is installed and not switched off with --no-jupyter. */
    readonly compareJupyter: boolean,
    readonly root: string,
    /** JUPYTER_PATH holding the bench's own kernelspecs (flood). */
    readonly jupyterPath: string,
    /** With --profile: every nbserve process writes a CPU profile here. */
    readonly profileDir?: string,
  ) {}

  /** `full` normally, `quick` with --quick. */
  size<T>(full: T, quick: T): T {
    return this.quick ? quick : full;
  }

  log(text: string): void {
    process.stdout.write(`  [${this.scenario}] ${text}\n`);
  }

  record(input: RowInput): void {
    this.rows.push({
      scenario: this.scenario,
      metric: input.metric,
      unit: input.unit,
      primary: input.primary ?? 'nbserve',
      values: input.values,
      targets: input.targets ?? [],
      notes: input.notes ?? [],
    });
  }

  markUnavailable(who: string, reason: string): void {
    const line = `${this.scenario}: ${who} not available yet (${reason})`;
    this.unavailable.push(line);
    this.log(`${who}: not available yet — ${reason}`);
  }

  /** The servers to compare in this run: nbserve, then jupyter_server when installed. */
  serverKinds(): ServerKind[] {
    return this.compareJupyter ? ['nbserve', 'jupyter_server'] : ['nbserve'];
  }

  /**
   * Starts a fresh server of `kind`, runs `body`, always stops it. A server that cannot start, or a
   * `FeatureMissing` thrown by `body`, is reported as "not available yet" and yields undefined.
   */
  async withServer<T>(
    kind: ServerKind,
    body: (server: ServerHandle) => Promise<T>,
    options: { compiled?: boolean } = {},
  ): Promise<T | undefined> {
    let server: ServerHandle;
    try {
      server = await startServer(kind, {
        root: this.root,
        jupyterPath: this.jupyterPath,
        ...(this.profileDir ? { profileDir: join(this.profileDir, this.scenario) } : {}),
        ...options,
      });
    } catch (error) {
      if (error instanceof ServerUnavailable) {
        this.markUnavailable(options.compiled ? `${kind} (compiled)` : kind, error.message);
        return undefined;
      }
      throw error;
    }
    try {
      return await body(server);
    } catch (error) {
      if (error instanceof FeatureMissing) {
        this.markUnavailable(kind, error.message);
        return undefined;
      }
      throw error;
    } finally {
      await server.stop();
    }
  }
}

/** Thrown when a route a scenario needs does not exist (yet) on the server under test. */
export class FeatureMissing extends Error {}
