export { GatewayClient, type GatewayOptions } from './client.js';
export { kernelStartEnv } from './env.js';
export { GatewayKernelSpecs, type GatewayKernelSpecsOptions } from './kernelspecs.js';
export { GatewayProvisioner, type GatewayProvisionerOptions } from './provisioner.js';
