/**
 * Prints where a V8 CPU profile (`node --cpu-prof`, e.g. from `pnpm bench --profile`) spends its
 * time: self time per function with file:line, and inclusive time per source file.
 * Usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { REPO_ROOT } from './lib/workspace.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfMs = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) {
  selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
}
const total = [...selfMs.values()].reduce((a, b) => a + b, 0);

const where = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  const path = url.startsWith('/') ? relative(REPO_ROOT, url) : url || '(native)';
  return `${path}:${n.callFrame.lineNumber + 1}`;
};
const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${where(n)}`;

const selfByFunction = new Map<string, number>();
for (const [id, ms] of selfMs) {
  const n = byId.get(id);
  if (n) selfByFunction.set(label(n), (selfByFunction.get(label(n)) ?? 0) + ms);
}
// inclusive time per file: a sample counts once for every distinct file on its stack
const inclusiveByFile = new Map<string, number>();
for (const [id, ms] of selfMs) {
  const files = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const n = byId.get(at);
    if (n?.callFrame.url) files.add(where(n).replace(/:\d+$/, ''));
  }
  for (const f of files) inclusiveByFile.set(f, (inclusiveByFile.get(f) ?? 0) + ms);
}

const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
};
console.log(`${file}: ${total.toFixed(0)} ms sampled`);
print('self time by function', selfByFunction);
print('inclusive time by file', inclusiveByFile);
