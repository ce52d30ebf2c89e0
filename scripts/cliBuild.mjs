// How the CLI (`mcp-switchboard`, dist/cli.js) is bundled: one place for the build and the benchmarks.
//
// - Run as a command (its `bin`), it starts Node with a 1 MiB semi-space (young generation;
//   src/core/machine/hostLaunch.ts CLI_NODE_FLAGS, which the host and the agents' launcher use).
//   `serve` is a long-running gateway; Node's default lets the young generation grow to 32 MiB under
//   load, which was a quarter of the process's memory (bench:peers: 120 MB RSS against 98 MB, with
//   no more CPU per call); 2 MiB instead of 4 took another 20 MiB off after 10 rounds of bursts (115
//   → 95 MiB) at the same latency (bench/RESULTS.md). The editor's launcher for other agents
//   (src/editor/cliLauncher.ts) passes the same flag. npm's Windows shims read `env -S` shebangs
//   too. `node dist/cli.js` runs without it. 1 MiB instead of 2 (2026-11-30): an agent's `serve
//   --stdio` with 10 servers holds 36 MB instead of 46 (PSS), at the same latency and throughput.
// - Comments are left out: some hold non-ASCII characters (— →), which make V8 keep the whole
//   3.4 MB source as a two-byte string (7 MB); whitespace-only minification keeps the names, and the
//   source map still points at the TypeScript.
// - What the bundles leave out of their dependencies: scripts/bundleTrim.mjs.
// - What only a team gateway loads (OpenTelemetry's SDK for --otlp-endpoint, the Redis client for
//   --redis) stays out of the bundle: the npm package depends on it, and serve loads it when asked
//   for. Bundled, it was 0.9 MB more source for every serve to parse, one person's included
//   (bench:peers: RSS 1.05-1.06x mcp-hub's, against 0.80-1.00x before).
import { TRIM_PLUGINS } from './bundleTrim.mjs';

/** Packages the CLI loads from node_modules (and its npm package depends on). */
export const CLI_EXTERNAL = [
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace',
  '@redis/client',
];

export const CLI_BUILD_OPTIONS = {
  entryPoints: ['src/cli.ts'],
  banner: { js: '#!/usr/bin/env -S node --max-semi-space-size=1' },
  minifyWhitespace: true,
  plugins: TRIM_PLUGINS,
  external: CLI_EXTERNAL,
};
