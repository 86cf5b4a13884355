import { type Browser, chromium } from 'playwright-core';

/** Flags for headless Debian Chromium in containers and CI: no sandbox, no GPU, no background network traffic. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Launches Debian's Chromium (never a downloaded browser), shared by tests and the benchmarks. */
export async function launchChromium(): Promise<Browser> {
  return await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}
