import { badRequest, conflict, notFound } from '../errors.js';
import { assertProfileName, defaultIpythonDir, discoverProfiles } from './profiles.js';
import type { ClusterModel, ClusterProfile, ClusterProvider } from './types.js';

export interface ClusterManagerOptions {
  provider: ClusterProvider;
  /**
   * Directories searched for `profile_*` dirs, first wins. Default: `$IPYTHONDIR` (or
   * `~/.ipython`), then the process's working directory — IPython's own search order.
   */
  profileSearchDirs?: readonly string[];
}

type Pending = { kind: 'starting' | 'stopping'; done: Promise<void> };

/**
 * The IPython cluster model over a ClusterProvider. Profiles are re-discovered on every call
 * (new profile dirs appear without a restart); status comes from the provider's files, so a
 * cluster started outside nbserve shows as running, and one that died shows as stopped.
 */
export class ClusterManager {
  private readonly provider: ClusterProvider;
  private readonly searchDirs: readonly string[];
  private readonly pending = new Map<string, Pending>();
  private readonly deciding = new Map<string, Promise<void>>();

  constructor(options: ClusterManagerOptions) {
    this.provider = options.provider;
    this.searchDirs = options.profileSearchDirs ?? [defaultIpythonDir(), process.cwd()];
  }

  /** Every profile's cluster. Without the engine installed this is a 503 with an install hint. */
  async list(): Promise<ClusterModel[]> {
    await this.provider.ensureAvailable();
    const profiles = await discoverProfiles(this.searchDirs);
    return Promise.all(profiles.map((profile) => this.model(profile)));
  }

  async get(profileName: string): Promise<ClusterModel> {
    const profile = await this.profile(profileName);
    await this.provider.ensureAvailable();
    return this.model(profile);
  }

  /** Starts the profile's cluster with `n` engines (undefined: the profile's configured default). */
  async start(profileName: string, n?: number): Promise<ClusterModel> {
    if (n !== undefined && (!Number.isSafeInteger(n) || n < 1)) {
      throw badRequest(`n must be a positive integer, not ${n}`, 'bad value');
    }
    const profile = await this.profile(profileName);
    await this.provider.ensureAvailable();
    const done = await this.decide(profile.name, async () => {
      const current = this.pending.get(profile.name);
      if (current?.kind === 'starting') throw conflict('cluster already running');
      if (current?.kind === 'stopping') await current.done.catch(() => {}); // a start right after a stop waits
      if ((await this.provider.state(profile)).running) throw conflict('cluster already running');
      const started = this.provider.start(profile, n);
      this.track(profile.name, 'starting', started);
      return started;
    });
    await done;
    const state = await this.provider.state(profile);
    const engines = state.n ?? n;
    return { ...base(profile), status: 'running', ...(engines === undefined ? {} : { n: engines }) };
  }

  /** Stops the profile's cluster. Answers at once, as upstream did; teardown continues behind. */
  async stop(profileName: string): Promise<ClusterModel> {
    const profile = await this.profile(profileName);
    await this.provider.ensureAvailable();
    await this.decide(profile.name, async () => {
      const current = this.pending.get(profile.name);
      if (current?.kind === 'stopping') throw conflict('cluster not running');
      if (current?.kind === 'starting') await current.done.catch(() => {});
      if (!(await this.provider.state(profile)).running) throw conflict('cluster not running');
      const stopped = this.provider.stop(profile);
      this.track(profile.name, 'stopping', stopped);
      stopped.catch((error: unknown) => console.error(`[nbserve] stopping cluster ${profile.name} failed:`, error));
    });
    return { ...base(profile), status: 'stopped' };
  }

  /** Resolves when no start or stop is in flight (for shutdown and tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending.values()].map((p) => p.done));
    }
  }

  /**
   * Runs a check-then-act step for one profile alone, so two concurrent starts cannot both see
   * "stopped" and both launch. The step returns before the (slow) start or stop has finished.
   */
  private decide<T>(name: string, step: () => Promise<T>): Promise<T> {
    const previous = this.deciding.get(name) ?? Promise.resolve();
    const run = previous.then(step, step);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.deciding.set(name, settled);
    settled.then(() => {
      if (this.deciding.get(name) === settled) this.deciding.delete(name);
    });
    return run;
  }

  private track(name: string, kind: Pending['kind'], done: Promise<void>): void {
    const entry: Pending = { kind, done };
    this.pending.set(name, entry);
    const clear = () => {
      if (this.pending.get(name) === entry) this.pending.delete(name);
    };
    done.then(clear, clear);
  }

  private async profile(name: string): Promise<ClusterProfile> {
    assertProfileName(name);
    const profile = (await discoverProfiles(this.searchDirs)).find((p) => p.name === name);
    if (!profile) throw notFound('profile not found');
    return profile;
  }

  private async model(profile: ClusterProfile): Promise<ClusterModel> {
    const pending = this.pending.get(profile.name);
    if (pending?.kind === 'stopping') return { ...base(profile), status: 'stopped' };
    const state = await this.provider.state(profile);
    if (!state.running && pending?.kind !== 'starting') return { ...base(profile), status: 'stopped' };
    return { ...base(profile), status: 'running', ...(state.n === undefined ? {} : { n: state.n }) };
  }
}

function base(profile: ClusterProfile): Pick<ClusterModel, 'profile' | 'profile_dir'> {
  return { profile: profile.name, profile_dir: profile.dir };
}
