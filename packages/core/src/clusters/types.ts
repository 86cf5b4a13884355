/** The IPython cluster model every generation of the clusters API returns. */
export interface ClusterModel {
  profile: string;
  profile_dir: string;
  status: 'running' | 'stopped';
  /** Engine count; present only while running (upstream omits it when stopped). */
  n?: number;
}

/** An IPython profile directory (`profile_<name>`) that can hold a cluster. */
export interface ClusterProfile {
  name: string;
  dir: string;
}

/** What a provider observed about a profile's cluster. */
export interface ClusterState {
  running: boolean;
  /** Engine count when the provider knows it. */
  n?: number;
}

/**
 * A parallel-computing engine that can run one cluster per profile. ipyparallel's `ipcluster`
 * is the first; others (Dask, a batch scheduler) plug in here without touching the manager.
 */
export interface ClusterProvider {
  readonly name: string;
  /** Throws an `unavailable` NbserveError, with an install hint, when the engine cannot run here. */
  ensureAvailable(): Promise<void>;
  /** Reads the cluster's state from the engine's own files, so clusters started elsewhere count. */
  state(profile: ClusterProfile): Promise<ClusterState>;
  /** Starts the cluster; resolves once the engine has accepted it. `n` undefined = the profile's default. */
  start(profile: ClusterProfile, n: number | undefined): Promise<void>;
  /** Stops the cluster; resolves when it has been torn down. */
  stop(profile: ClusterProfile): Promise<void>;
}
