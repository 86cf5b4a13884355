// builds the CLI like bundle-cli.mjs but with a metafile; prints static import chains to targets
import * as esbuild from 'esbuild';
import path from 'node:path';
const pkg = '/work/wt-startpool/packages/cli';
const r = await esbuild.build({ entryPoints: [path.join(pkg,'src/main.ts')], bundle:true, platform:'node', format:'esm', target:'node20', conditions:['@nbserve/source'], external:['zeromq','esbuild','bufferutil','utf-8-validate','tsx','tsx/*'], write:false, metafile:true, outdir:'/tmp/sp/out', splitting:true, logLevel:'error', absWorkingDir: pkg });
const inputs = r.metafile.inputs;
const entry = 'src/main.ts';
const prev = new Map([[entry,null]]); const q=[entry];
while(q.length){const f=q.shift(); for(const im of inputs[f]?.imports??[]){ if(im.kind!=='import-statement'&&im.kind!=='require-call') continue; if(im.external) continue; if(!prev.has(im.path)){prev.set(im.path,f);q.push(im.path);} }}
let total=0; const sizes=[];
for(const f of prev.keys()){ const b=inputs[f]?.bytes??0; total+=b; sizes.push([b,f]); }
console.log('static reachable', prev.size, 'bytes', total);
const groups = new Map();
for (const [b,f] of sizes){ const m=f.match(/node_modules\/\.pnpm\/[^/]+\/node_modules\/((@[^/]+\/)?[^/]+)/); const g=m?m[1]:f.replace(/^\.\.\/([^/]+)\/src\/([^/]+).*/,'$1/$2'); groups.set(g,(groups.get(g)??0)+b);}
console.log([...groups].sort((a,b)=>b[1]-a[1]).slice(0,40).map(([g,b])=>`${b} ${g}`).join('\n'));
for (const t of process.argv.slice(2)) { const hit=[...prev.keys()].find(f=>f.includes(t)); if(!hit){console.log('NOT static:',t);continue;} const chain=[]; let c=hit; while(c){chain.push(c);c=prev.get(c);} console.log('\n'+t+':\n  '+chain.reverse().join('\n  ')); }
