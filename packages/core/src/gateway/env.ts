import os from 'node:os';

export interface KernelEnvInput {
  /** The server's environment. */
  processEnv: Readonly<Record<string, string | undefined>>;
  /** Variables of this start (e.g. `JPY_SESSION_NAME`); like the server's, only forwarded when allowed. */
  requestEnv: Readonly<Record<string, string>>;
  /** Names forwarded besides `KERNEL_*`. */
  allowed: readonly string[];
  /** The kernel's working directory on this server. */
  workingDir: string;
  /** Seconds the gateway may take to launch the kernel. */
  launchTimeoutS: number;
}

/**
 * The `env` of a kernel start request, as jupyter_server's GatewayKernelManager builds it
 * (https://jupyter-enterprise-gateway.readthedocs.io/en/latest/users/kernel-envs.html): every
 * `KERNEL_*` variable and every allowed name of the server's environment and of this start, plus
 * `KERNEL_USERNAME` (who the kernel runs for: `$KERNEL_USERNAME`, else the hub user, else the OS
 * user), `KERNEL_WORKING_DIR` (the notebook's directory on this server) and
 * `KERNEL_LAUNCH_TIMEOUT`, unless the environment sets them.
 */
export function kernelStartEnv(input: KernelEnvInput): Record<string, string> {
  const allowed = new Set(input.allowed);
  const env: Record<string, string> = {};
  for (const source of [input.processEnv, input.requestEnv]) {
    for (const [name, value] of Object.entries(source)) {
      if (value !== undefined && (name.startsWith('KERNEL_') || allowed.has(name))) env[name] = value;
    }
  }
  env.KERNEL_USERNAME ??= input.processEnv.JUPYTERHUB_USER || osUser();
  env.KERNEL_WORKING_DIR ??= input.workingDir;
  env.KERNEL_LAUNCH_TIMEOUT ??= String(input.launchTimeoutS);
  return env;
}

function osUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
}
