#!/usr/bin/env node
/**
 * The built-in kernel process: `node main.js -f <connection_file> [--language typescript]`.
 * Kept free of anything but the protocol so it starts fast.
 */
import { parseArgs } from 'node:util';
import type { Language } from './engine/messages.js';
import { EngineThread } from './engine-thread.js';
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

// The execution thread boots on the other core while this one loads ZeroMQ and binds.
const engine = new EngineThread(language);
const { JsKernel } = await import('./kernel.js');
const kernel = await JsKernel.start({ connectionFile, language, engine }).catch((error: Error) => {
  process.stderr.write(`kernel-js: cannot start: ${error.message}\n`);
  process.exit(1);
});

// With interrupt_mode "signal" the launcher sends SIGINT to our process group.
process.on('SIGINT', () => void kernel.interrupt());
process.on('SIGTERM', () => void kernel.close(0));
watchParent(() => void kernel.close(0));
