/**
 * What `/api/status` reports: when the server started, when it last did real work, and how many
 * kernels and client connections it has. The kernels code plugs its counts in with `count*`.
 */
export class Activity {
  readonly started: Date;
  private last: Date;
  /** Live kernel count; the kernel manager replaces this. */
  countKernels: () => number = () => 0;
  /** Open WebSocket connections; the WebSocket layer replaces this. */
  countConnections: () => number = () => 0;

  constructor(private readonly now: () => Date = () => new Date()) {
    this.started = now();
    this.last = this.started;
  }

  get lastActivity(): Date {
    return this.last;
  }

  /** Records activity (an API request, a kernel message). */
  touch(): void {
    this.last = this.now();
  }
}
