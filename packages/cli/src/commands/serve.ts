import { promises as fs } from 'node:fs';
import path from 'node:path';
import { generateToken, type ServeOptions, serve } from '@nbserve/http';
import { isLogLevel, stderrLogger } from '../logger.js';
import { openBrowser } from '../open-browser.js';

export interface ServeCommandOptions extends Record<string, unknown> {
  openBrowser?: boolean;
  logLevel?: string;
  token?: string;
  gatewayUrl?: string;
  gatewayAuthToken?: string;
}

const LOUD_WARNING = `
********************************************************************************
  WARNING: authentication is DISABLED (--token ""). Anyone who can reach this
  server can read and write your files and run code as you.
********************************************************************************
`;

/**
 * The token: the flag, else $NBSERVE_TOKEN / $JUPYTER_TOKEN, else a fresh random one. Only an
 * explicit `--token ''` turns auth off; an empty environment variable does not.
 */
function chooseToken(flag: string | undefined): string {
  if (flag !== undefined) return flag;
  return process.env.NBSERVE_TOKEN || process.env.JUPYTER_TOKEN || generateToken();
}

/**
 * A 0600 file in the runtime dir that redirects to the token URL: the browser is opened on it
 * rather than on the URL, so the token never appears in the process list.
 */
async function writeBrowserOpenFile(runtimeDir: string, url: string): Promise<string> {
  await fs.mkdir(runtimeDir, { recursive: true, mode: 0o700 });
  const file = path.join(runtimeDir, `nbserve-${process.pid}-open.html`);
  const escaped = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escaped}"></head><body><a href="${escaped}">Open nbserve</a></body></html>\n`;
  await fs.writeFile(file, html, { mode: 0o600 });
  return file;
}

/** `nbserve [root]`: serve until SIGINT/SIGTERM or `POST /api/shutdown`, then exit 0. */
export async function runServe(root: string, options: ServeCommandOptions): Promise<number> {
  const {
    openBrowser: wantBrowser = true,
    logLevel = 'warn',
    token: tokenFlag,
    // As jupyter_server's GatewayClient, the gateway may be given by the environment (a spawner's, say).
    gatewayUrl = process.env.JUPYTER_GATEWAY_URL || undefined,
    gatewayAuthToken = process.env.JUPYTER_GATEWAY_AUTH_TOKEN || undefined,
    ...rest
  } = options;
  if (!isLogLevel(logLevel)) {
    process.stderr.write(`nbserve: --log-level must be debug, info, warn or error, not ${JSON.stringify(logLevel)}\n`);
    return 2;
  }
  const logger = stderrLogger(logLevel);
  const token = chooseToken(tokenFlag);
  const absoluteRoot = path.resolve(root);
  const stat = await fs.stat(absoluteRoot).catch(() => null);
  if (!stat?.isDirectory()) {
    process.stderr.write(`nbserve: the root ${absoluteRoot} is not a directory\n`);
    return 2;
  }
  if (token === '') process.stderr.write(LOUD_WARNING);

  let running: Awaited<ReturnType<typeof serve>>;
  try {
    running = await serve({
      ...(rest as Partial<ServeOptions>),
      ...(gatewayUrl ? { gatewayUrl } : {}),
      ...(gatewayAuthToken ? { gatewayAuthToken } : {}),
      root: absoluteRoot,
      token,
      logger,
    });
  } catch (error) {
    process.stderr.write(`nbserve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) {
      // A second Ctrl-C means "now": the kernels were already asked to stop.
      process.exit(1);
    }
    stopping = true;
    logger.warn(`${reason}: shutting down`);
    void running.close();
  };
  const onSigint = () => stop('SIGINT');
  const onSigterm = () => stop('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  let fatal = false;
  const onFatal = (error: unknown) => {
    if (fatal) return; // already stopping; a second report must not start a second shutdown
    fatal = true;
    logger.error(`Fatal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    running.close().finally(() => process.exit(1));
  };
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);

  const tokenUrl = token === '' ? running.url : `${running.url}?token=${token}`;
  process.stdout.write(`nbserve is serving ${absoluteRoot}\n    ${tokenUrl}\nPress Ctrl-C to stop.\n`);

  let openFile: string | null = null;
  if (wantBrowser) {
    try {
      openFile = await writeBrowserOpenFile(running.app.services.options.runtimeDir, tokenUrl);
      openBrowser(openFile, (message) => logger.warn(message));
    } catch (error) {
      logger.warn(`Could not open a browser: ${String(error)}`);
    }
  }

  await running.closed;
  process.off('SIGINT', onSigint);
  process.off('SIGTERM', onSigterm);
  if (openFile) await fs.rm(openFile, { force: true });
  process.stdout.write('nbserve stopped.\n');
  return 0;
}
