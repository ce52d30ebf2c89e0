// What a client tells the machine host of a server it wants shared: its launch (command, arguments,
// environment, working folder) and how to run it (timeouts, reconnects, idle stop), nothing of the
// window (its name for it, its filters, its folders). Equal launches are one server in the host:
// the host names it by the fingerprint the manager already restarts on (config/hash.ts).
//
// Where it runs. An entry that names no `cwd` runs in its window's folder when the window runs it.
// In the host it runs in the home folder, as the editor's own client runs a user-level server, so
// that every window's copy is one, unless its launch names something in that folder by a relative
// path (`server.js`, `./bin/run`, `.`): then it keeps the folder, which is part of its fingerprint,
// and the windows and agents on that folder share one copy. A server that reads its working folder
// without naming it cannot be told apart: its entry needs a `cwd`, or `shareServers` off for it.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { hashServerConnection, limits, type SandboxPlaces, type StdioServerDefinition } from '../config';

const text = z.string().max(limits.MAX_STRING_LENGTH);
const ms = z.number().int().min(0).max(limits.MAX_TIMER_MS);
const paths = z.array(text).max(limits.MAX_ARGS).readonly();

export const sharedLaunchSchema = z.object({
  command: text.min(1),
  args: z.array(text).max(limits.MAX_ARGS),
  env: z.record(z.string().max(limits.MAX_NAME_LENGTH), text).refine((env) => Object.keys(env).length <= limits.MAX_MAP_ENTRIES),
  cwd: text.optional(),
  timeouts: z.object({ connectMs: ms, requestMs: ms }),
  reconnect: z.object({ maxAttempts: z.number().int().min(0).max(limits.MAX_RECONNECT_ATTEMPTS), initialDelayMs: ms, maxDelayMs: ms }),
  idleStopMs: ms,
  /** `eager`: this client wants it running from the start (its entry says so); else on the first request. */
  start: z.enum(['eager', 'lazy']).optional(),
  /** Values the host's logs redact (the definition's secrets that appear in the launch). */
  secrets: z.array(text).max(limits.MAX_MAP_ENTRIES),
  /** A sandboxed server: its rules, and the client's places they protect (config SandboxSetting.places). */
  sandbox: z
    .object({
      enabled: z.literal(true),
      origin: z.enum(['entry', 'file', 'userDefault', 'builtIn', 'workspaceConsent']),
      rules: z.object({
        filesystem: z.object({ allowWrite: paths, denyRead: paths, denyWrite: paths }),
        network: z.object({ allowedDomains: paths, deniedDomains: paths }),
      }),
      places: z.object({
        workspaceFolders: paths,
        editorUserDir: text.optional(),
        workspaceFile: text.optional(),
        toolDirs: paths.optional(),
      }),
    })
    .optional(),
});
export type SharedLaunch = z.infer<typeof sharedLaunchSchema>;

/** Servers one client may ask the host to run. */
export const MAX_SHARED_PER_CLIENT = 200;

/**
 * What the client sends of a definition it shares. `places`: what its sandboxes protect (its open
 * folders, its editor's files), which a sandboxed server run for it in the host protects too.
 */
export function sharedLaunchOf(
  definition: StdioServerDefinition,
  places: SandboxPlaces = { workspaceFolders: [] },
  exists: (file: string) => boolean = fs.existsSync,
): SharedLaunch {
  const launchText = JSON.stringify([definition.command, definition.args, definition.env, definition.cwd ?? '']);
  const sandbox = definition.sandbox?.enabled ? { ...definition.sandbox, enabled: true as const, places } : undefined;
  return {
    ...(sandbox ? { sandbox } : {}),
    command: definition.command,
    args: [...definition.args],
    env: { ...definition.env },
    cwd: sharedCwdOf(definition, exists),
    timeouts: definition.timeouts,
    reconnect: definition.reconnect,
    idleStopMs: definition.lifecycle.idleStopMs,
    start: definition.lifecycle.start,
    secrets: definition.secrets.filter((secret) => secret.length > 0 && launchText.includes(secret)),
  };
}

/** Where the host runs `definition`: undefined for the home folder (see the top of this file). */
export function sharedCwdOf(definition: StdioServerDefinition, exists: (file: string) => boolean = fs.existsSync): string | undefined {
  const folder = definition.cwd;
  if (!definition.cwdIsFolder || folder === undefined) return folder;
  // A secret is not a path, though a key may hold a `/`.
  const secrets = new Set(definition.secrets);
  const values = [definition.command, ...definition.args, ...Object.values(definition.env)].filter((value) => !secrets.has(value));
  return values.some((value) => namesInFolder(value, folder, exists)) ? folder : undefined;
}

const MAX_PATH_CHECKED = 4096;

/** Whether `value` (a command, an argument or `--flag=value`, an environment value) is a relative path into `folder`. */
function namesInFolder(value: string, folder: string, exists: (file: string) => boolean): boolean {
  const text = value.startsWith('-') && value.includes('=') ? value.slice(value.indexOf('=') + 1) : value;
  if (text === '' || text.startsWith('-') || text.length > MAX_PATH_CHECKED || text.includes('\0')) return false;
  if (path.isAbsolute(text) || path.win32.isAbsolute(text) || text.includes(':')) return false;
  // A path with a folder in it (`./bin/run`, `build/index.js`), but not a scoped package (`@scope/name`).
  if (/[\\/]/.test(text) && !text.startsWith('@')) return true;
  // A name in the folder (`server.js`, `.`).
  return exists(path.join(folder, text));
}

/**
 * The host's definition of a shared launch: named by its fingerprint, started as the client's entry
 * says (the host runs it eagerly while any attached client wants it so), stopped when idle as the
 * client asked. Neither is part of the fingerprint: one launch is one server, however its clients
 * start it. A sandbox is, with the places it protects.
 */
export function hostedDefinition(launch: SharedLaunch): StdioServerDefinition {
  const unnamed: StdioServerDefinition = {
    name: '',
    source: { kind: 'user' },
    enabled: true,
    transport: 'stdio',
    command: launch.command,
    args: launch.args,
    env: launch.env,
    cwd: launch.cwd,
    timeouts: launch.timeouts,
    reconnect: launch.reconnect,
    tools: {},
    lifecycle: { start: launch.start ?? 'lazy', idleStopMs: launch.idleStopMs },
    secrets: launch.secrets,
    ...(launch.sandbox ? { sandbox: launch.sandbox } : {}),
  };
  return { ...unnamed, name: `s${hashServerConnection(unnamed).slice(0, 16)}` };
}
