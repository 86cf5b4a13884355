import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by the bin, so that it applies from the bin's first line on.
 *
 * Keeps V8's young generation at its initial size (1 MiB per semi-space) in the server process.
 * V8 doubles it, up to 16 MiB per semi-space on 64-bit, whenever many objects survive a scavenge
 * -- as in a burst of kernel starts -- and shrinks it back only when its memory reducer next runs,
 * which an idle server does not trigger: 20 kernels started at once left the server 12.5 MB
 * larger for minutes. Node offers `--max-semi-space-size` only on its command line, which a
 * `node nbserve.js` or an npm bin does not pass; the growth factor is read at each growth, so
 * setting it at run time works. The cost is more, smaller scavenges in allocation-heavy work
 * (docs/benchmarks.md has the figures). `NBSERVE_YOUNG_GENERATION=grow` keeps V8's default.
 */
export function boundYoungGeneration(env: NodeJS.ProcessEnv = process.env): void {
  if (env.NBSERVE_YOUNG_GENERATION !== 'grow') setFlagsFromString('--semi-space-growth-factor=1');
}

boundYoungGeneration();
