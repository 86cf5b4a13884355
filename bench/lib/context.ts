import { join } from 'node:path';
import type { Row, Subject, Target } from './report.js';
import { type ServerHandle, type ServerKind, startServer } from './servers.js';

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
  /** What went wrong, one line each (scenario, subject, request): any of them fails the run. */
  readonly failures: string[] = [];
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

  /** Records a failure and lets the scenario go on with its other subjects; the run exits non-zero. */
  fail(who: string, reason: string): void {
    this.failures.push(`${this.scenario}: ${who}: ${reason}`);
    this.log(`${who}: FAILED — ${reason}`);
  }

  /** The servers to compare in this run: nbserve, then jupyter_server when installed. */
  serverKinds(): ServerKind[] {
    return this.compareJupyter ? ['nbserve', 'jupyter_server'] : ['nbserve'];
  }

  /**
   * Starts a fresh server of `kind`, runs `body`, always stops it. Any failure — the server does not
   * start, a request gets an unexpected status — is thrown on with the server named, and fails the run.
   */
  async withServer<T>(
    kind: ServerKind,
    body: (server: ServerHandle) => Promise<T>,
    options: { compiled?: boolean; env?: Record<string, string>; args?: string[] } = {},
  ): Promise<T> {
    const label = options.compiled ? `${kind} (compiled)` : kind;
    let server: ServerHandle | undefined;
    try {
      server = await startServer(kind, {
        root: this.root,
        jupyterPath: this.jupyterPath,
        ...(this.profileDir ? { profileDir: join(this.profileDir, this.scenario) } : {}),
        ...options,
      });
      return await body(server);
    } catch (error) {
      throw new Error(`${label}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      await server?.stop();
    }
  }
}
