// Gateway memory per session, capped and uncapped: clients that open sessions and never DELETE them.
//   node --expose-gc --import tsx bench/sessions.ts [sessions=3000]
import http from 'node:http';
import { McpGateway } from '../src/core/gateway';
import { ServerManager } from '../src/core/manager';
import { FixtureToolSource, toolsServer } from '../test/core/gateway/helpers';

const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

function open(gateway: McpGateway): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: gateway.port,
        method: 'POST',
        path: '/mcp',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${gateway.token}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

async function measure(
  source: FixtureToolSource,
  maxSessions: number,
  count: number,
): Promise<{ perSession: number; grownMb: number; open: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const gateway = new McpGateway({ source, maxSessions });
  await gateway.start();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) await open(gateway);
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  const result = { perSession: grown / count / 1024, grownMb: grown / 1048576, open: gateway.sessionCount };
  await gateway.dispose();
  return result;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 3000);
  const manager = new ServerManager();
  const source = new FixtureToolSource(manager);
  await manager.start([toolsServer('alpha')]);
  const uncapped = await measure(source, 1_000_000, count);
  const capped = await measure(source, 256, count);
  // support.mjs is ESM and tsx runs this file as CommonJS: a dynamic import bridges the two.
  const support = (await import('./support.mjs')) as {
    dateLine(): string;
    machineLine(): string;
    replaceSection(heading: string, section: string): void;
    shouldWrite(): boolean;
  };
  const section = [
    '## bench:sessions',
    '',
    `Command: \`npm run bench:sessions\` (\`node --expose-gc --import tsx bench/sessions.ts ${count}\`). ${support.dateLine()}. ${support.machineLine()}.`,
    '',
    `${count} clients each open a gateway session (a raw initialize POST) and never close it, as most SDK clients do. Heap growth after a forced GC, with the session cap lifted and with the default cap of 256 (least recently used closed first).`,
    '',
    '| gateway | heap growth | per session | sessions open at the end |',
    '|---|---|---|---|',
    `| no cap (as before) | ${uncapped.grownMb.toFixed(1)} MB | ${uncapped.perSession.toFixed(1)} KB | ${uncapped.open} |`,
    `| cap 256 (default) | ${capped.grownMb.toFixed(1)} MB | - | ${capped.open} |`,
    '',
  ].join('\n');
  console.log(section);
  if (support.shouldWrite()) support.replaceSection('## bench:sessions', section);
  source.dispose();
  await manager.dispose();
  process.exit(0);
}

void main();
