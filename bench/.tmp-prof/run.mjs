import { spawn } from 'node:child_process';
import fs from 'node:fs'; import path from 'node:path'; import readline from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const root = '/work/main';
const cli = process.argv[2]; const N = Number(process.argv[3] ?? 3000); const prof = process.argv[4];
const folder = fs.mkdtempSync('/tmp/prof/ws-'); fs.mkdirSync(path.join(folder, '.vscode'));
fs.writeFileSync(path.join(folder, '.vscode/settings.json'), JSON.stringify({ 'mcpSwitchboard.servers': { fixture: { command: process.execPath, args: [path.join(root,'test/fixtures/stdio-server.mjs'), '--name','peer','--max-lifetime','900000'] } } }));
const args = [...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), cli, 'serve', '--folder', folder, '--trust-workspace'];
const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
const ready = await new Promise((r) => readline.createInterface({ input: child.stdout }).once('line', (l) => r(JSON.parse(l))));
const client = new Client({ name: 'p', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
let tools;
for (;;) { try { await client.connect(new StreamableHTTPClientTransport(new URL(ready.servers.fixture), { requestInit: { headers: { Authorization: `Bearer ${ready.token}` } } })); tools = (await client.listTools()).tools; if (tools.length) break; } catch (e) { } await new Promise(r=>setTimeout(r,200)); }
const echo = tools.find(t => t.name.endsWith('echo')).name;
for (let i = 0; i < 300; i++) await client.callTool({ name: echo, arguments: { text: 'hi' } });
const cpu = () => { const f = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const cpu0 = cpu();
const times = [];
for (let i = 0; i < N; i++) { const s = performance.now(); await client.callTool({ name: echo, arguments: { text: 'hello from the benchmark' } }); times.push(performance.now() - s); }
times.sort((a, b) => a - b);
console.log('cpu/call ms', ((cpu() - cpu0) / N).toFixed(3), 'p50', times[Math.floor(N / 2)].toFixed(3), 'p95', times[Math.floor(N * 0.95)].toFixed(3));
await client.close(); child.kill('SIGINT'); await new Promise(r => child.once('exit', r));
