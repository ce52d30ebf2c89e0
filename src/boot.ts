// The entry of the editor's package (dist/extension.js): it loads the bundle (dist/main.js,
// src/main.ts) with V8's code cache, kept in Switchboard's own folder, and hands over to the role
// asked for: the extension when the editor loads it, the CLI when it is run as a program (the
// launcher of other agents, the machine host). Nothing else of the bundle may be imported here: it
// would be compiled without the cache.
import path from 'node:path';
import { loadWithCodeCache } from './core/base/codeCache';
import { userConfigFolder } from './core/base/userFolder';

/** Long enough after the load that activation and the first sessions' code was compiled, and is in the cache. */
const SAVE_AFTER_MS = 20_000;

const off = process.env.MCP_SWITCHBOARD_CODE_CACHE === 'off';
// Sooner only for the tests of this entry, which cannot wait 20 s for the file.
const saveAfterMs = Number(process.env.MCP_SWITCHBOARD_CODE_CACHE_SAVE_MS) || SAVE_AFTER_MS;
const loaded = loadWithCodeCache(path.join(__dirname, 'main.js'), require, {
  folder: off ? undefined : path.join(userConfigFolder(), 'code-cache'),
  saveAfterMs,
});
const main = loaded.exports as typeof import('./main');

if (require.main === module) {
  main.cli();
} else {
  module.exports = main.extension();
}
