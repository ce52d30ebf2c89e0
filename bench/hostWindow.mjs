#!/usr/bin/env node
// One "window" of bench:host: the core runtime wired as the extension wires it (src/extension.ts),
// in a process of its own, as each window's extension host is. It reads the configuration (the user
// settings file names the servers), shares them through the machine host or not, starts them, and
// serves chat's gateway on 127.0.0.1. One JSON line on stdout once every server runs:
//   {"ready": ms from activation to every server running, "url", "token"}
// It ends when stdin closes. Started by bench/host.mjs with the path of a JSON file:
//   { "bundle", "loader" (src/core/base/codeCache.ts bundled), "codeCache" (its folder), "cli", "folder", "userSettings", "share" }
import fs from 'node:fs';
import { createRequire } from 'node:module';

const options = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
// As the extension's entry (src/boot.ts) loads the bundle: with the code cache, made by the first window.
const loadStarted = performance.now();
const { loadWithCodeCache } = createRequire(import.meta.url)(options.loader);
const bundleLoad = loadWithCodeCache(options.bundle, createRequire(options.bundle), { folder: options.codeCache, saveAfterMs: 60_000 });
const core = bundleLoad.exports;
const load = { ms: performance.now() - loadStarted, cache: bundleLoad.use };
// As the extension's own at its default level: nothing below info is rendered (a logger without
// `enabled` is read as tracing, and every message would be rendered for it).
const quiet = {
  enabled: (level) => level === 'warn' || level === 'error',
  trace() {},
  debug() {},
  info() {},
  warn: (m) => process.stderr.write(`[window] ${m}\n`),
  error: (m) => process.stderr.write(`[window] ${m}\n`),
};

const activatedAt = performance.now();
const place = core.hostPlace();
const runtime = core.createRuntime({
  logger: quiet,
  storage: new core.MemoryToolCacheStorage(),
  settings: {},
  connection: { defaultCwd: options.folder },
});
const link = options.share
  ? new core.HostLink({
      place,
      version: core.PRODUCT_VERSION,
      logger: quiet,
      launch: core.hostLauncher(place, { command: process.execPath, args: [options.cli], env: process.env }, quiet),
    })
  : undefined;
const sharing =
  link && new core.ServerSharing({ link, policy: () => core.SHARE_ALL, workspaceFolders: () => [options.folder], logger: quiet });
const loaded = await core.loadFolderConfiguration(options.folder, {
  env: process.env,
  launchers: [],
  userSettingsFile: options.userSettings,
});
const configured = loaded.servers;
const configuredAt = performance.now();
const started = sharing ? await sharing.share(configured) : configured;
const sharedAt = performance.now();
await runtime.manager.start(started);
const outcome = await runtime.manager.waitForState((servers) => servers.every((server) => server.state.kind === 'running'), {
  timeoutMs: 120_000,
});
const ready = performance.now() - activatedAt;
if (outcome !== 'met')
  process.stderr.write(`[window] not every server runs: ${JSON.stringify(runtime.manager.servers().map((s) => [s.name, s.state.kind]))}\n`);
const gateway = runtime.gateway();
const address = await gateway.start();
// Where the time to ready went: reading the configuration, sharing (attach and the list), the connections.
const phases = { config: configuredAt - activatedAt, share: sharedAt - configuredAt, connect: activatedAt + ready - sharedAt };
// The cache holds what ran until now: the next window starts from there, as the extension's next would.
bundleLoad.save();
process.stdout.write(`${JSON.stringify({ ready, phases, load, url: address.url, token: address.token, outcome })}\n`);

process.stdin.resume();
process.stdin.on('end', async () => {
  sharing?.dispose();
  link?.dispose();
  await runtime.dispose();
  process.exit(0);
});
