import type childProcess from 'node:child_process';

export function refusedProgram(
  command: string,
  argv: readonly string[],
): 'kernel' | 'browser' | 'jupyter_server' | 'jupyterhub' | undefined;

export function guardChildProcess(
  process: typeof childProcess,
  onRefused: (need: string, commandLine: string) => void,
): void;
