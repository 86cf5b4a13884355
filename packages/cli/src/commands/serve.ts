import { promises as fs } from 'node:fs';
import path from 'node:path';
import { escapeHtml } from '@nbserve/core';
import { DEFAULTS, generateToken, type ServeOptions, serve } from '@nbserve/http';
import { type HubFlags, type HubSettings, hubSettings, waitForHub } from '../hub-mode.js';
import { cliLogger, isLogFormat, isLogLevel, jsonLine, type LogFormat, secretScrubber } from '../logger.js';
import { openBrowser } from '../open-browser.js';

export interface ServeCommandOptions extends Record<string, unknown>, HubFlags {
  openBrowser?: boolean;
  logLevel?: string;
  logFormat?: string;
  token?: string;
  notebookDir?: string;
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
function chooseToken(flag: string | undefined): { token: string; generated: boolean } {
  if (flag !== undefined) return { token: flag, generated: false };
  const given = process.env.NBSERVE_TOKEN || process.env.JUPYTER_TOKEN;
  return given ? { token: given, generated: false } : { token: generateToken(), generated: true };
}

/**
 * What the command itself prints (the banner on stdout, refusals on stderr): plain text, or with
 * `--log-format json` the same JSON lines as the log, so every line of output parses. `secrets`
 * may grow once they are known.
 */
function commandOutput(format: LogFormat, secrets: string[]) {
  return {
    say(text: string, message: string, fields?: Record<string, string>) {
      process.stdout.write(format === 'json' ? jsonLine('info', message, fields, secretScrubber(secrets)) : text);
    },
    complain(level: 'warn' | 'error', text: string, message = text.replace(/^nbserve: /, '').trim()) {
      process.stderr.write(format === 'json' ? jsonLine(level, message, {}, secretScrubber(secrets)) : text);
    },
  };
}

/**
 * A 0600 file in the runtime dir that redirects to the token URL: the browser is opened on it
 * rather than on the URL, so the token never appears in the process list.
 */
async function writeBrowserOpenFile(runtimeDir: string, url: string): Promise<string> {
  await fs.mkdir(runtimeDir, { recursive: true, mode: 0o700 });
  const file = path.join(runtimeDir, `nbserve-${process.pid}-open.html`);
  const escaped = escapeHtml(url);
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escaped}"></head><body><a href="${escaped}">Open nbserve</a></body></html>\n`;
  await fs.writeFile(file, html, { mode: 0o600 });
  return file;
}

/** The hub's settings under the flags, or an exit code when the hub's variables are wrong. */
function hubSettingsOrExit(
  options: ServeCommandOptions,
  out: ReturnType<typeof commandOutput>,
): HubSettings | null | number {
  try {
    return hubSettings(options);
  } catch (error) {
    out.complain('error', `nbserve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

/** What a serve runs with, once its flags, environment and root are checked. */
interface ServeSettings {
  out: ReturnType<typeof commandOutput>;
  json: boolean;
  logger: ReturnType<typeof cliLogger>;
  hub: HubSettings | null;
  root: string;
  token: string;
  generated: boolean;
  wantBrowser: boolean;
  serveOptions: Partial<ServeOptions>;
}

/** `nbserve [root]`: serve until SIGINT/SIGTERM or `POST /api/shutdown`, then exit 0. */
export async function runServe(rootArg: string | undefined, flags: ServeCommandOptions): Promise<number> {
  const settings = await readSettings(rootArg, flags);
  if (typeof settings === 'number') return settings;
  const running = await start(settings);
  if (running === null) return 1;
  const stopOnSignals = handleSignals(running, settings.logger);
  const tokenUrl = announce(running, settings);
  const openFile = settings.wantBrowser ? await openInBrowser(running, tokenUrl, settings.logger) : null;
  await running.closed;
  stopOnSignals();
  if (openFile) await fs.rm(openFile, { force: true });
  settings.out.say('nbserve stopped.\n', 'nbserve stopped');
  return 0;
}

/**
 * The flags, the hub's variables and the environment read into settings, or the exit code of a
 * refusal (printed): a wrong log format or level, two roots, a root that is no directory.
 */
async function readSettings(rootArg: string | undefined, flags: ServeCommandOptions): Promise<ServeSettings | number> {
  const { logFormat = DEFAULTS.logFormat } = flags;
  if (!isLogFormat(logFormat)) {
    process.stderr.write(`nbserve: --log-format must be text or json, not ${JSON.stringify(logFormat)}\n`);
    return 2;
  }
  const secrets: string[] = [];
  const out = commandOutput(logFormat, secrets);
  if (rootArg !== undefined && flags.notebookDir !== undefined && rootArg !== flags.notebookDir) {
    out.complain('error', 'nbserve: give the root either as an argument or as --notebook-dir, not both\n');
    return 2;
  }
  const hub = hubSettingsOrExit(flags, out);
  if (typeof hub === 'number') return hub;
  const { rootDir, hub: hubConfig, ...hubOptions } = hub ?? {};
  const options: ServeCommandOptions = hub ? { ...flags, ...hubOptions, openBrowser: false } : flags;
  const {
    openBrowser: wantBrowser = DEFAULTS.openBrowser,
    logLevel = DEFAULTS.logLevel,
    logFormat: _format,
    token: tokenFlag,
    notebookDir,
    hubMode,
    // As jupyter_server's GatewayClient, the gateway may be given by the environment (a spawner's, say).
    gatewayUrl = process.env.JUPYTER_GATEWAY_URL || undefined,
    gatewayAuthToken = process.env.JUPYTER_GATEWAY_AUTH_TOKEN || undefined,
    ...rest
  } = options;
  if (!isLogLevel(logLevel)) {
    out.complain('error', `nbserve: --log-level must be debug, info, warn or error, not ${JSON.stringify(logLevel)}\n`);
    return 2;
  }
  const { token, generated } = chooseToken(tokenFlag);
  secrets.push(token, ...(hubConfig ? [hubConfig.apiToken] : []));
  const logger = cliLogger({ level: logLevel, format: logFormat, secrets });
  const root = path.resolve(rootArg ?? notebookDir ?? rootDir ?? '.');
  const stat = await fs.stat(root).catch(() => null);
  if (!stat?.isDirectory()) {
    out.complain('error', `nbserve: the root ${root} is not a directory\n`);
    return 2;
  }
  if (token === '' && !hub) {
    out.complain(
      'warn',
      LOUD_WARNING,
      'Authentication is DISABLED (--token ""): anyone who can reach this server can read and write your files and run code as you',
    );
  }
  const json = logFormat === 'json';
  const serveOptions: Partial<ServeOptions> = {
    ...(rest as Partial<ServeOptions>),
    ...(hubConfig ? { hub: hubConfig } : {}),
    ...(gatewayUrl ? { gatewayUrl } : {}),
    ...(gatewayAuthToken ? { gatewayAuthToken } : {}),
    ...(json ? { logKernelOutput: true } : {}),
  };
  return { out, json, logger, hub, root, token, generated, wantBrowser, serveOptions };
}

type Running = Awaited<ReturnType<typeof serve>>;

/** The server listening (after the hub answers, in hub mode), or `null` once its failure is printed. */
async function start(settings: ServeSettings): Promise<Running | null> {
  const { hub, logger, root, token, serveOptions } = settings;
  try {
    if (hub) await waitForHub(hub.hub, logger);
    return await serve({ ...serveOptions, root, token, logger });
  } catch (error) {
    settings.out.complain('error', `nbserve: ${error instanceof Error ? error.message : String(error)}\n`);
    return null;
  }
}

/**
 * SIGINT and SIGTERM close the server (a second one exits at once); an uncaught error closes it
 * and exits 1. Gives the function that stops listening for the signals.
 */
function handleSignals(running: Running, logger: ServeSettings['logger']): () => void {
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
  return () => {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  };
}

/** Prints where the server is (with its token, unless in hub mode); gives that URL. */
function announce(running: Running, settings: ServeSettings): string {
  const { out, hub, root, token } = settings;
  // In hub mode the token is no way in (the hub is): print the plain URL.
  const tokenUrl = token === '' || hub ? running.url : `${running.url}?token=${token}`;
  const forWhom = hub ? ` for JupyterHub user ${hub.hub.user}` : '';
  out.say(`nbserve is serving ${root}${forWhom}\n    ${tokenUrl}\nPress Ctrl-C to stop.\n`, 'nbserve is serving', {
    root,
    url: running.url,
    ...(hub ? { hub_user: hub.hub.user } : {}),
  });
  if (settings.json && settings.generated && !hub) {
    // A log collector is no place for a credential: the generated token is not printed.
    settings.logger.warn('A random token was generated and JSON logs never show it: set --token or $NBSERVE_TOKEN');
  }
  return tokenUrl;
}

/** Opens a browser on the server through a redirect file (see writeBrowserOpenFile); gives that file. */
async function openInBrowser(
  running: Running,
  tokenUrl: string,
  logger: ServeSettings['logger'],
): Promise<string | null> {
  try {
    const openFile = await writeBrowserOpenFile(running.app.services.options.runtimeDir, tokenUrl);
    openBrowser(openFile, (message) => logger.warn(message));
    return openFile;
  } catch (error) {
    logger.warn(`Could not open a browser: ${String(error)}`);
    return null;
  }
}
