import * as esbuild from 'esbuild';
import { EXTENSION_TRIM_PLUGINS } from '/work/main/scripts/bundleTrim.mjs';
const r = await esbuild.build({ bundle: true, platform: 'node', target: 'node20', format: 'cjs', minify: true, absWorkingDir: '/work/main', mainFields: ['module','main'], entryPoints: ['src/main.ts'], outfile: '/tmp/ext.js', external: ['vscode'], plugins: EXTENSION_TRIM_PLUGINS, metafile: true, logLevel: 'error' });
const out = Object.values(r.metafile.outputs)[0];
const byPkg = {};
for (const [file, info] of Object.entries(out.inputs)) {
  const m = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  const key = m ? m[1] : file.split('/').slice(0,3).join('/');
  byPkg[key] = (byPkg[key] ?? 0) + info.bytesInOutput;
}
console.log('total', out.bytes);
for (const [k,v] of Object.entries(byPkg).sort((a,b)=>b[1]-a[1]).slice(0,30)) console.log(String(v).padStart(8), k);
console.log('---');
for (const [file, info] of Object.entries(out.inputs).filter(([f])=>/modelcontextprotocol\/(client|server|ext-tasks|core)/.test(f)).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput).slice(0,25)) console.log(String(info.bytesInOutput).padStart(8), file);
