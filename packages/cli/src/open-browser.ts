import { spawn } from 'node:child_process';

/**
 * Opens a URL or file in the desktop browser (`open` on macOS, `start` on Windows, `xdg-open`
 * elsewhere). Failure is harmless: the URL is printed anyway. `$BROWSER` wins when set.
 */
export function openBrowser(target: string, onError: (message: string) => void): void {
  const browser = process.env.BROWSER;
  const [command, args] = browser
    ? [browser, [target]]
    : process.platform === 'darwin'
      ? ['open', [target]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', target]]
        : ['xdg-open', [target]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', (error) => onError(`Could not open a browser (${command}): ${error.message}`));
    child.unref();
  } catch (error) {
    onError(`Could not open a browser (${command}): ${String(error)}`);
  }
}
