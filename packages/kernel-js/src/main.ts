#!/usr/bin/env node
/**
 * The built-in kernel process: `node main.cjs -f <connection_file> [--language typescript]`.
 * Kept free of anything but the protocol so it starts fast. No top-level await: the bundle
 * (`dist/kernel/main.cjs`) is CommonJS, which skips the ESM loader's start-up cost.
 */
import { parseArgs } from 'node:util';
import type { Language } from './engine/messages.js';
import { JsKernel } from './kernel.js';
import { watchParent } from './parent-watch.js';

const { values } = parseArgs({
  options: {
    f: { type: 'string', short: 'f' },
    language: { type: 'string', default: 'javascript' },
  },
  strict: false,
});

const connectionFile = typeof values.f === 'string' ? values.f : undefined;
const language = values.language === 'typescript' ? 'typescript' : ('javascript' as Language);
if (!connectionFile) {
  process.stderr.write('usage: kernel-js -f <connection_file> [--language javascript|typescript]\n');
  process.exit(2);
}

// The sockets are bound first; the execution thread boots right after (see JsKernel.start).
JsKernel.start({ connectionFile, language }).then(
  (kernel) => {
    // With interrupt_mode "signal" the launcher sends SIGINT to our process group.
    process.on('SIGINT', () => void kernel.interrupt());
    process.on('SIGTERM', () => void kernel.close(0));
    watchParent(() => void kernel.close(0));
  },
  (error: Error) => {
    process.stderr.write(`kernel-js: cannot start: ${error.message}\n`);
    process.exit(1);
  },
);
