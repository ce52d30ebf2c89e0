// The path of one tool call through Switchboard, as a stack: a 2025 client calls `echo` of a stdio
// fixture through the gateway's per-server endpoint, and the stack is taken where the gateway hands
// the HTTP request's message to the SDK's server, where the call enters the catalog and the
// connection, and where the connection hands it to the SDK client (an async stack ends at a hop it
// cannot follow, a .then or a callback). Each frame of Switchboard's own code is printed once, from
// the HTTP request down, with its file. For comparing commits:
//   npx tsx scripts/trace-call.ts
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { MemoryToolCacheStorage, ToolCatalog } from '../src/core/catalog';
import { ServerConnection } from '../src/core/connection';
import { createRuntime } from '../src/core/runtime/runtime';
import { nullLogger } from '../src/core/base/logging';
import { stdioDefinition } from '../test/core/connection/helpers';

/** The class of the SDK's server that defines `_onrequest`, where a message the gateway received becomes a request. */
function protocolOf(prototype: object): { prototype: object; name: string } {
  for (let current: object | null = prototype; current; current = Object.getPrototypeOf(current) as object | null)
    if (Object.prototype.hasOwnProperty.call(current, '_onrequest')) return { prototype: current, name: 'Protocol' };
  throw new Error('the SDK server has no _onrequest');
}

/** Where the stack is taken: each shows the frames above it, up to the first hop the async stack cannot follow. */
const CHECKPOINTS: ReadonlyArray<readonly [string, { prototype: object; name?: string }, string]> = [
  ['the SDK server', protocolOf(Server.prototype), '_onrequest'],
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
      // The client here is an SDK client too: only the connection's call counts; only the tool call's request.
      const request = args[0] as { method?: unknown } | undefined;
      if (method === '_onrequest' && request?.method !== 'tools/call') return original.apply(this, args);
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
      // A checkpoint's own method was counted where it was reached.
      .filter((frame) => !seen.has(`${frame.file}:${frame.line}`) && !seen.has(frame.name));
    console.log(`up to ${label}:`);
    for (const frame of frames) {
      seen.add(`${frame.file}:${frame.line}`);
      files.add(frame.file);
      count += 1;
      console.log(`  ${String(count).padStart(2)}. ${frame.name}  (${frame.file})`);
    }
    const [, owner, method] = CHECKPOINTS.find(([name]) => name === label) ?? [];
    if (owner !== Client && label !== 'the SDK server') {
      const name = `${owner?.name}.${method}`;
      seen.add(name);
      count += 1;
      console.log(`  ${String(count).padStart(2)}. ${name}`);
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
