import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolated, runCli, tempDirs, useCliRuns } from '../../../testing/cli.js';
import { REPO } from '../../../testing/repo.js';
import { makeTempDir } from '../../../testing/temp.js';
import { TOKEN } from '../../../testing/token.js';
import { open } from '../../../testing/ws-recorder.js';

const run = promisify(execFile);

/**
 * The shipped `nbserve` bin is one esbuild bundle. Built here into a temp "installed package"
 * (package.json, dist/, node_modules -> the CLI's own dependencies) so the test proves it finds its
 * web assets, kernel entry and logos without the repository's sources, and does not depend on a
 * prior `pnpm build` (except JupyterLab's, which scripts/ensure-tools.sh makes: it is copied as built).
 */
let pkg: string;
let bin: string;
let work: string;

beforeAll(async () => {
  work = await makeTempDir('nbserve-bundle-');
  pkg = path.join(work, 'node_modules', 'nbserve');
  await fs.mkdir(pkg, { recursive: true });
  await fs.copyFile(path.join(REPO, 'packages/cli/package.json'), path.join(pkg, 'package.json'));
  await fs.symlink(path.join(REPO, 'packages/cli/node_modules'), path.join(pkg, 'node_modules'));
  const web = path.join(work, 'web-static');
  const kernel = path.join(work, 'kernel');
  await Promise.all([
    run(process.execPath, ['--import', 'tsx', 'src/bundle/write-bundle.ts', web], {
      cwd: path.join(REPO, 'packages/web'),
    }),
    run(process.execPath, ['scripts/bundle-kernel.mjs', kernel], { cwd: path.join(REPO, 'packages/kernel-js') }),
  ]);
  const script = path.join(REPO, 'packages/cli/scripts/bundle-cli.mjs');
  const { bundleCli } = (await import(script)) as {
    bundleCli(o: { outDir: string; sources: Record<string, string> }): Promise<void>;
  };
  await bundleCli({
    outDir: path.join(pkg, 'dist'),
    sources: { 'web/dist/static': web, 'kernel-js/dist/kernel': kernel },
  });
  bin = path.join(pkg, 'dist', 'nbserve.js');
}, 90_000);

useCliRuns();
afterAll(async () => {
  if (work) await fs.rm(work, { recursive: true, force: true });
});

describe('the bundled nbserve bin', () => {
  it('is an ESM bin that prints the package version, its start-up code in a few files', async () => {
    const version = (JSON.parse(await fs.readFile(path.join(pkg, 'package.json'), 'utf8')) as { version: string })
      .version;
    const { stdout } = await run(process.execPath, [bin, '--version'], { cwd: work });
    expect(stdout.trim()).toBe(version);
    expect((await fs.readFile(bin, 'utf8')).startsWith('#!/usr/bin/env node')).toBe(true);
    // the bin and the chunks it imports statically (code it shares with the library entry)
    const startup = new Map<string, string>();
    const load = async (file: string): Promise<void> => {
      if (startup.has(file)) return;
      const code = await fs.readFile(path.join(pkg, 'dist', file), 'utf8');
      startup.set(file, code);
      for (const [, specifier] of code.matchAll(/^import (?:[^;]*? from )?["']([^"']+)["'];$/gm)) {
        // workspace packages and pure-JS dependencies are inlined; only Node built-ins are imported (no zeromq)
        expect(specifier).toMatch(/^(node:|\.\/nbserve-chunk-[\w-]+\.js$)/);
        if (specifier?.startsWith('./')) await load(specifier.slice(2));
      }
    };
    await load('nbserve.js');
    expect(startup.size).toBeLessThanOrEqual(9);
    const text = [...startup.values()].join('\n');
    // the print renderer (KaTeX, marked) is a lazily imported chunk, not parsed at start-up
    expect(text).toMatch(/import\("\.\/nbserve-print-[\w-]+\.js"\)/);
    expect(text).not.toContain('katex');
    // so is marked for the HTML exporter: its regex tables cost ~15 ms at start-up
    expect(text).toMatch(/import\("\.\/nbserve-markdown-html-[\w-]+\.js"\)/);
    // and live documents (Yjs and its kin, a third of the server's code), and ws
    expect(text).toMatch(/import\("\.\/nbserve-collaboration-[\w-]+\.js"\)/);
    expect(text).not.toContain('Yjs was already imported');
    expect(text).not.toContain('Sec-WebSocket-Accept');
    // one non-ASCII character would make V8 hold a whole chunk as a two-byte string (slower start)
    for (const name of await fs.readdir(path.join(pkg, 'dist'))) {
      if (!name.endsWith('.js')) continue;
      const code = await fs.readFile(path.join(pkg, 'dist', name), 'utf8');
      expect(code.match(/[\u0080-\uffff]/g) ?? [], name).toEqual([]);
    }
    // the escaped regular expressions (KaTeX's, marked's) still match what they did in the sources
    const printChunk = (await fs.readdir(path.join(pkg, 'dist'))).find((f) => f.startsWith('nbserve-print-'));
    type Render = (notebook: unknown) => string;
    const bundled = (await import(path.join(pkg, 'dist', printChunk ?? 'missing'))) as { renderNotebookHtml: Render };
    const source = (await import('../../web/src/server/print.js')) as { renderNotebookHtml: Render };
    const notebook = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [
        {
          cell_type: 'markdown',
          id: 'a',
          metadata: {},
          source:
            '\u2022 dot \u2014 dash\n\n* \u00e9t\u00e9\n\n$\\alpha \\le \\beta$ and $$\\sum_{i}^{\u221e} x_i$$ \u4e2d\u6587',
        },
      ],
    };
    const html = bundled.renderNotebookHtml(notebook);
    expect(html).toContain('katex');
    expect(html).toBe(source.renderNotebookHtml(notebook));
  });

  it('serves /api, the dashboard and its assets, built-in kernelspec logos, and stops on SIGTERM', async () => {
    const dirs = await tempDirs();
    await fs.writeFile(path.join(dirs.root, 'hello.txt'), 'hi');
    const notebook = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [{ cell_type: 'markdown', id: 'm1', metadata: {}, source: '# Area\n\n$a = \\pi r^2$' }],
    };
    await fs.writeFile(path.join(dirs.root, 'circle.ipynb'), JSON.stringify(notebook));
    const cli = runCli([dirs.root, ...isolated(dirs), `--token=${TOKEN}`], { bin, cwd: work });
    const origin = new URL(await cli.url).origin;
    const auth = { authorization: `token ${TOKEN}` };

    const api = await fetch(`${origin}/api`, { headers: auth });
    expect(api.status).toBe(200);
    expect(await api.json()).toEqual({ version: expect.any(String) });

    // the API description ships inside the bundled package
    const spec = await fetch(`${origin}/api/spec.yaml`, { headers: auth });
    expect(spec.status).toBe(200);
    expect(spec.headers.get('content-type')).toBe('text/x-yaml');
    expect(await spec.text()).toMatch(/^openapi: 3\./);

    const listing = await fetch(`${origin}/api/contents`, { headers: auth });
    expect(((await listing.json()) as { content: { name: string }[] }).content.map((c) => c.name).sort()).toEqual([
      'circle.ipynb',
      'hello.txt',
    ]);

    // the print page loads its renderer chunk on first use and typesets the math
    const print = await fetch(`${origin}/print/circle.ipynb`, { headers: auth });
    expect(print.status).toBe(200);
    const printed = await print.text();
    expect(printed).toContain('Area</h1>');
    expect(printed).toContain('class="katex"');

    // the HTML export loads its markdown chunk on first use
    const exported = await fetch(`${origin}/nbconvert/html/circle.ipynb`, { headers: auth });
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain('<h1>Area</h1>');

    const page = await fetch(`${origin}/tree`, { headers: auth });
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script[^>]+src="([^"]*\/static\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(new URL(script as string, origin));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect((await asset.text()).length).toBeGreaterThan(100);

    // the built-in kernel's entry and logos resolve inside the bundled package, not the repository
    const specs = (await (await fetch(`${origin}/api/kernelspecs`, { headers: auth })).json()) as {
      kernelspecs: Record<string, { spec: { argv: string[] }; resources: Record<string, string> }>;
    };
    const js = specs.kernelspecs.javascript;
    expect(js?.spec.argv[1]).toBe(path.join(pkg, 'dist/packages/kernel-js/dist/kernel/main.cjs'));
    await expect(fs.stat(js?.spec.argv[1] as string)).resolves.toBeTruthy();
    const logo = await fetch(`${origin}${js?.resources['logo-64x64']}`, { headers: auth });
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');

    // JupyterLab ships built beside the bin (dist/lab) with its third-party licenses, and is served
    const lab = path.join(pkg, 'dist', 'lab');
    expect(JSON.parse(await fs.readFile(path.join(lab, 'build.json'), 'utf8'))).toMatchObject({ version: '4.6.4' });
    const licenses = JSON.parse(await fs.readFile(path.join(lab, 'static', 'third-party-licenses.json'), 'utf8'));
    expect(licenses.packages.map((p: { name: string }) => p.name)).toContain('@jupyterlab/application');
    const labPage = await fetch(`${origin}/lab`, { headers: auth });
    expect(labPage.status).toBe(200);
    const labScript = /<script[^>]+src="[^"]*\/static\/lab\/([^"]+\.js)"/.exec(await labPage.text())?.[1];
    await expect(fs.stat(path.join(lab, 'static', labScript as string))).resolves.toBeTruthy();
    const labAsset = await fetch(`${origin}/static/lab/${labScript}`, { headers: { 'accept-encoding': 'br' } });
    expect(labAsset.status).toBe(200);
    expect(labAsset.headers.get('content-encoding')).toBe('br');

    cli.child.kill('SIGTERM');
    expect(await cli.exit).toEqual({ code: 0, signal: null });
  });
  it('runs a JavaScript kernel cell with zeromq unresolvable: no native ZeroMQ at run time', async () => {
    // zeromq is only a dev dependency now; a module hook makes sure nothing resolves it even where
    // the repository's node_modules has it (the kernel process inherits NODE_OPTIONS)
    const block = path.join(work, 'block-zeromq.mjs');
    await fs.writeFile(
      block,
      [
        "import Module, { register } from 'node:module';",
        "const blocked = (s) => s === 'zeromq' || s.startsWith('zeromq/');",
        'const resolve = Module._resolveFilename;',
        "Module._resolveFilename = function (s, ...rest) { if (blocked(s)) throw Object.assign(new Error('zeromq is blocked'), { code: 'MODULE_NOT_FOUND' }); return resolve.call(this, s, ...rest); };",
        "register('data:text/javascript,' + encodeURIComponent(\"export async function resolve(s, c, next) { if (s === 'zeromq' || s.startsWith('zeromq/')) throw Object.assign(new Error('zeromq is blocked'), { code: 'ERR_MODULE_NOT_FOUND' }); return next(s, c); }\"));",
      ].join('\n'),
    );
    const nodeOptions = `--import=${pathToFileURL(block).href}`;
    // the hook works: from the repository, where zeromq is installed, it does not load
    const probe = run(process.execPath, [nodeOptions, '-e', "require('zeromq')"], { cwd: REPO });
    await expect(probe).rejects.toThrow(/zeromq is blocked/);
    await expect(
      run(process.execPath, [nodeOptions, '--input-type=module', '-e', "await import('zeromq')"], { cwd: REPO }),
    ).rejects.toThrow(/zeromq is blocked/);

    const dirs = await tempDirs();
    const cli = runCli([dirs.root, ...isolated(dirs), `--token=${TOKEN}`], {
      bin,
      cwd: work,
      env: { NODE_OPTIONS: nodeOptions },
    });
    const origin = new URL(await cli.url).origin;
    const auth = { authorization: `token ${TOKEN}` };
    const started = await fetch(`${origin}/api/kernels`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'javascript' }),
    });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    const socket = await open(`${origin.replace('http', 'ws')}/api/kernels/${id}/channels`, auth);
    const msgId = 'bundle-execute';
    socket.ws.send(
      JSON.stringify({
        header: { msg_id: msgId, msg_type: 'execute_request', session: 's', username: '', date: '', version: '5.3' },
        parent_header: {},
        metadata: {},
        content: { code: '6 * 7', silent: false, store_history: true, user_expressions: {}, allow_stdin: false },
        channel: 'shell',
      }),
    );
    const result = await socket.waitFor(
      (f) => f.header.msg_type === 'execute_result' && f.parent_header.msg_id === msgId,
    );
    expect((result.content.data as Record<string, string>)['text/plain']).toBe('42');
    const reply = await socket.waitFor((f) => f.header.msg_type === 'execute_reply');
    expect(reply.content.status).toBe('ok');
    socket.ws.close();
    expect(cli.stderr()).not.toMatch(/zeromq/i);
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toEqual({ code: 0, signal: null });
  }, 60_000);
});
