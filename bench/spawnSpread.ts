// The first to the last server process when the runtime starts 20 stdio fixtures at once, and how
// much of it is spent inside `child_process.spawn()` itself. Not a test; read by hand
// (bench/RESULTS.md, "What the first-to-twentieth-process time is made of").
//   npx tsx bench/spawnSpread.ts
import childProcess from 'node:child_process';
import { createRuntime } from '../src/core/runtime/runtime';
import { MemoryToolCacheStorage } from '../src/core/catalog';
import { nullLogger } from '../src/core/base/logging';
import { stdioDefinition } from '../test/core/connection/helpers';

const calls: number[] = [];
let inside = 0;
const spawn = childProcess.spawn;
(childProcess as { spawn: unknown }).spawn = function (this: unknown, ...args: unknown[]) {
  const started = performance.now();
  const child = (spawn as (...a: unknown[]) => unknown).apply(this, args);
  calls.push(started);
  inside += performance.now() - started;
  return child;
};

async function main(): Promise<void> {
  const runtime = createRuntime({ logger: nullLogger, storage: new MemoryToolCacheStorage(), settings: {} });
  const started = performance.now();
  await runtime.manager.start(Array.from({ length: 20 }, (_, i) => stdioDefinition([], { name: `s${i}` })));
  const first = calls[0] ?? Number.NaN;
  const last = calls[calls.length - 1] ?? Number.NaN;
  console.log(
    `${calls.length} spawns: the first ${(first - started).toFixed(0)} ms after start, the last ${(last - first).toFixed(0)} ms after the first; ${inside.toFixed(0)} ms inside spawn()`,
  );
  await runtime.dispose();
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
