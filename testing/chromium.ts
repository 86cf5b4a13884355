import { type Browser, chromium } from 'playwright-core';

/** The flags toolchain.md verified for headless Debian Chromium on these machines. */
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
