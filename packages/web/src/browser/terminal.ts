import '@xterm/xterm/css/xterm.css';
import './../styles/base.css';
import './../styles/terminal.css';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { encodePath } from '../shared/paths.js';
import { api } from './lib/api.js';
import { pageConfig } from './lib/config.js';
import { h, toast } from './lib/dom.js';
import { onTheme, themeToggle } from './lib/theme.js';

type ServerMessage = [string, ...unknown[]];

/**
 * The terminal page (`/terminals/<name>`): xterm.js fitted to the window on the terminal's
 * WebSocket (terminado's messages). Copy with Ctrl-Shift-C (or Ctrl-C while text is selected),
 * paste with Ctrl-Shift-V or Ctrl-V; a dropped connection is reopened, and the server then sends
 * the recent screen again.
 */
function main(): void {
  const { baseUrl } = pageConfig();
  const name = String(pageConfig().terminalName ?? '');
  const status = h('span', { className: 'terminal-status' }, 'Connecting…');
  const host = h('div', { className: 'terminal-host' });
  document.body.replaceChildren(
    h(
      'header',
      { className: 'topbar' },
      h('a', { className: 'brand', href: `${baseUrl}tree` }, 'nbserve'),
      h('span', { className: 'terminal-title' }, `Terminal ${name}`),
      status,
      h('div', { className: 'spacer' }),
      h(
        'button',
        {
          type: 'button',
          className: 'btn btn-danger btn-small',
          onclick: () =>
            void api(`api/terminals/${encodePath(name)}`, { method: 'DELETE' }).catch((e: unknown) =>
              toast(e instanceof Error ? e.message : String(e), 'error'),
            ),
        },
        'Shut down',
      ),
      themeToggle(),
    ),
    h('main', { className: 'terminal-main' }, host),
  );
  document.title = `Terminal ${name} – nbserve`;

  const term = new Terminal({
    cursorBlink: true,
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace',
    fontSize: 14,
    scrollback: 5000,
    allowProposedApi: false,
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  onTheme((theme) => {
    term.options.theme = theme === 'dark' ? { background: '#0d1117', foreground: '#e6edf3' } : {};
  });
  term.open(host);
  fit.fit();
  term.focus();
  // for tests and debugging in the console
  (window as unknown as { nbserveTerminal: Terminal }).nbserveTerminal = term;

  let ws: WebSocket | undefined;
  let ended = false;
  let connectedOnce = false;
  let retryMs = 500;
  let retries = 0;
  const send = (message: unknown[]) => {
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  };
  const sendSize = () => send(['set_size', term.rows, term.cols, host.clientHeight, host.clientWidth]);

  term.onData((data) => send(['stdin', data]));
  term.onResize(() => sendSize());
  term.attachCustomKeyEventHandler((event) => {
    if (event.type !== 'keydown' || !(event.ctrlKey || event.metaKey)) return true;
    const key = event.key.toLowerCase();
    if (key === 'c' && (event.shiftKey || term.hasSelection())) {
      void navigator.clipboard?.writeText(term.getSelection()).catch(() => document.execCommand('copy'));
      event.preventDefault();
      return false;
    }
    // Let the browser deliver a paste event to xterm's textarea instead of sending ^V.
    if (key === 'v') return false;
    return true;
  });
  new ResizeObserver(() => fit.fit()).observe(host);

  const connect = () => {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${proto}//${location.host}${baseUrl}terminals/websocket/${encodePath(name)}`);
    ws = socket;
    socket.onopen = () => {
      retryMs = 500;
      retries = 0;
      status.textContent = '';
      sendSize();
    };
    socket.onmessage = (event) => {
      let message: ServerMessage;
      try {
        message = JSON.parse(String(event.data)) as ServerMessage;
      } catch {
        return;
      }
      if (message[0] === 'setup') {
        // A reconnect: the server sends the recent screen again.
        if (connectedOnce) term.reset();
        connectedOnce = true;
      } else if (message[0] === 'stdout' && typeof message[1] === 'string') {
        term.write(message[1]);
      } else if (message[0] === 'disconnect') {
        ended = true;
      }
    };
    socket.onclose = () => {
      if (ws !== socket) return;
      // a terminal that is gone (deleted, or the server restarted) refuses the upgrade every time
      if (ended || !connectedOnce || ++retries > 8) {
        ended = true;
        status.textContent = 'Terminal closed';
        term.write('\r\n\x1b[2m[Terminal closed]\x1b[0m\r\n');
        return;
      }
      status.textContent = 'Reconnecting…';
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 10_000);
    };
  };
  connect();
  document.body.dataset.ready = 'true';
}

main();
