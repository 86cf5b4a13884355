import * as esbuild from 'esbuild';
const variants = { plain: {}, ws: { minifyWhitespace: true }, wssyn: { minifyWhitespace: true, minifySyntax: true }, full: { minify: true }, fullkeep: { minify: true, keepNames: true } };
for (const [name, opts] of Object.entries(variants)) {
  await esbuild.build({ entryPoints: { nbserve: 'scripts/.entry-tmp.ts' }, bundle: true, platform: 'node', format: 'esm', target: 'node20', conditions: ['@nbserve/source'], external: ['zeromq','esbuild','bufferutil','utf-8-validate','tsx','tsx/*'], outdir: '/tmp/sp/v-' + name, splitting: true, chunkNames: 'c-[name]-[hash]', logLevel: 'error', legalComments: 'none', banner: { js: "import { createRequire as __nbserveRequire } from 'node:module';\nconst require = __nbserveRequire(import.meta.url);" }, ...opts });
}
