#!/usr/bin/env node
import { ignoreBrokenOutput } from './logger.js';
import { runCli } from './run.js';

ignoreBrokenOutput();

// Exit explicitly: once the server has stopped, nothing left (a straggling timer or socket) may keep the process up.
process.exit(await runCli(process.argv.slice(2)));
