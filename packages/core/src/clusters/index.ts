export { ClusterManager, type ClusterManagerOptions } from './cluster-manager.js';
export { IPCLUSTER_INSTALL_HINT, IpclusterProvider, type IpclusterProviderOptions } from './ipcluster-provider.js';
export { assertProfileName, defaultIpythonDir, discoverProfiles } from './profiles.js';
export type { ClusterModel, ClusterProfile, ClusterProvider, ClusterState } from './types.js';
