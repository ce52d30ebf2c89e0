// The bundle of the editor's package (dist/main.js), loaded by its entry (src/boot.ts, which is
// dist/extension.js) with V8's code cache. The editor loads the entry as the extension; run as a
// program (`node dist/extension.js serve --stdio`, what the launcher of other agents starts), it is
// the CLI. One bundle for both keeps the core once in the package, not twice.
//
// Each role is required lazily, so the CLI never loads the editor's API (there is none outside the
// editor), and the extension never runs the CLI's top level.
/* eslint-disable @typescript-eslint/no-require-imports -- a synchronous, lazy load: the extension's
   exports must be there when the editor reads them, and only the role asked for may run. */

/** The extension's `activate` and `deactivate`. */
export function extension(): typeof import('./extension') {
  return require('./extension') as typeof import('./extension');
}

/** Runs the CLI on this process's argv. */
export function cli(): void {
  require('./cli');
}
