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
      throw badRequest(`n must be a positive integer, not ${n}`, 'bad n');
    }
    const profile = await this.profile(profileName);
    await this.provider.ensureAvailable();
    const current = this.pending.get(profile.name);
    if (current?.kind === 'starting') throw conflict('cluster already running');
    if (current?.kind === 'stopping') await current.done; // a start right after a stop waits for the teardown
    if ((await this.provider.state(profile)).running) throw conflict('cluster already running');
    const done = this.provider.start(profile, n);
    this.track(profile.name, 'starting', done);
    await done;
    const state = await this.provider.state(profile);
    const engines = state.n ?? n;
    return { ...base(profile), status: 'running', ...(engines === undefined ? {} : { n: engines }) };
  }

  /** Stops the profile's cluster. Answers at once, as upstream did; teardown continues behind. */
  async stop(profileName: string): Promise<ClusterModel> {
    const profile = await this.profile(profileName);
    await this.provider.ensureAvailable();
    const current = this.pending.get(profile.name);
    if (current?.kind === 'stopping') throw conflict('cluster not running');
    if (current?.kind === 'starting') await current.done.catch(() => {});
    if (!(await this.provider.state(profile)).running) throw conflict('cluster not running');
    const done = this.provider.stop(profile);
    this.track(profile.name, 'stopping', done);
    done.catch((error: unknown) => console.error(`[nbserve] stopping cluster ${profile.name} failed:`, error));
    return { ...base(profile), status: 'stopped' };
  }

  /** Resolves when no start or stop is in flight (for shutdown and tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending.values()].map((p) => p.done));
    }
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
