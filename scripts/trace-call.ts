// The path of one tool call through Switchboard, as a stack: a 2025 client calls `echo` of a stdio
// fixture through the gateway's per-server endpoint, and the stack is taken where the connection
// hands the call to the SDK client, and where it enters the catalog and the connection (an async
// stack ends at a hop it cannot follow, a .then or a callback). Each frame of Switchboard's own
// code is printed once, from the gateway's handler down, with its file. For comparing commits:
//   npx tsx scripts/trace-call.ts
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MemoryToolCacheStorage, ToolCatalog } from '../src/core/catalog';
import { ServerConnection } from '../src/core/connection';
import { createRuntime } from '../src/core/runtime/runtime';
import { nullLogger } from '../src/core/base/logging';
import { stdioDefinition } from '../test/core/connection/helpers';

/** Where the stack is taken: each shows the frames above it, up to the first hop the async stack cannot follow. */
const CHECKPOINTS: ReadonlyArray<readonly [string, { prototype: object }, string]> = [
  ['the catalog', ToolCatalog, 'callExposedTool'],
  ['the connection', ServerConnection, 'sendToolCall'],
  ['the SDK client', Client, 'callTool'],
];

async function main(): Promise<void> {
  Error.stackTraceLimit = 200;
  const runtime = createRuntime({ logger: nullLogger, storage: new MemoryToolCacheStorage(), settings: {} });
  await runtime.manager.start([stdioDefinition()]);
  const gateway = runtime.gateway();
  await gateway.start();
  const client = new Client({ name: 'trace', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.endpointUrl('fixture')), {
      requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
    }),
  );
  const stacks = new Map<string, string>();
  for (const [label, owner, method] of CHECKPOINTS) {
    const prototype = owner.prototype as Record<string, (...args: unknown[]) => unknown>;
    const original = prototype[method];
    if (!original) throw new Error(`${label}: no method ${method}`);
    prototype[method] = function (this: unknown, ...args: unknown[]) {
      // The client here is an SDK client too: only the connection's call counts.
      if (this !== client && !stacks.has(label)) stacks.set(label, new Error('trace').stack ?? '');
      return original.apply(this, args);
    };
  }
  await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  await client.close();
  await runtime.dispose();
  const seen = new Set<string>();
  const files = new Set<string>();
  let count = 0;
  for (const [label] of CHECKPOINTS) {
    const frames = (stacks.get(label) ?? '')
      .split('\n')
      .slice(2)
      .map((line) => /at (?:async )?(\S+) \((.*src\/core\/[^:]+):(\d+)/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ name: match[1] ?? '', file: path.relative(path.resolve(__dirname, '..'), match[2] ?? ''), line: match[3] }))
      .reverse()
      .filter((frame) => !seen.has(`${frame.file}:${frame.line}`));
    console.log(`up to ${label}:`);
    for (const frame of frames) {
      seen.add(`${frame.file}:${frame.line}`);
      files.add(frame.file);
      count += 1;
      console.log(`  ${String(count).padStart(2)}. ${frame.name}  (${frame.file})`);
    }
    const [, owner, method] = CHECKPOINTS.find(([name]) => name === label) ?? [];
    if (owner !== Client) {
      count += 1;
      console.log(`  ${String(count).padStart(2)}. ${(owner as { name?: string } | undefined)?.name}.${method}`);
    }
  }
  console.log(`\n${count} frames of Switchboard's code, in ${files.size} files`);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
