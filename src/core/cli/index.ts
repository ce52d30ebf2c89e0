// The command-line apps, `serve` and `doctor`: the same runtime as the editor (runtime.ts), with
// arguments, the folder's settings file and stdout/stderr in place of the editor's UI.
export * from './doctor';
export { readCatalogSettings, serveCacheDir } from './folder';
export { runServe, serveCommand, type ServeOptions, type ServeReady } from './serve';
export { parseServeArgs } from './serveArgs';
export { LOGIN_USAGE, runLogin } from './login';
export { REGISTRY_USAGE, runRegistry } from './registry';
export { runShare, SHARE_USAGE } from './share';
export { guardStdio, watchParent } from './stdio';
export { terminalConfirm } from './terminalQuestion';
export { HOST_USAGE, runHost } from './host';
