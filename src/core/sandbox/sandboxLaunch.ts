// How a sandboxed stdio server is started: under the sandbox runtime's `srt` command
// (@anthropic-ai/sandbox-runtime: bubblewrap and a filtering proxy on Linux, Seatbelt on macOS), one
// `srt` per server, so that each server has its own rules and its own proxy and the proxy ends with
// it. `srt` runs on the Node that runs us (the editor's, as Electron in Node mode), as the editor's
// own MCP client does.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { isInsideFolders, type SandboxRules } from '../config';

/** Where the sandbox runtime is: the Node to run it on and its command-line entry. */
export interface SandboxRuntime {
  readonly nodePath: string;
  readonly cliPath: string;
  /**
   * Linux: the runtime's seccomp helper (`apply-seccomp`), which keeps a sandboxed server from
   * opening Unix sockets (the Docker socket, an SSH agent). Without it a Linux sandbox does not run.
   */
  readonly seccompHelper?: string;
}

export interface SandboxedCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The folder the server may always write, besides its rules: its TMPDIR and package caches. */
  readonly privateTemp: string;
}

export interface LaunchInput {
  readonly server: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly rules: SandboxRules;
  /** Parent of the per-server folders; defaults to the OS temp folder. */
  readonly stateRoot?: string;
}

/**
 * The bundled runtime next to our bundle (dist/sandbox/srt.mjs), else the package in node_modules
 * (tests and development). Undefined when neither is there: a broken install, reported as such.
 */
export function defaultSandboxRuntime(arch: string = process.arch): SandboxRuntime | undefined {
  const bundled = path.join(__dirname, 'sandbox', 'srt.mjs');
  if (fs.existsSync(bundled)) return withHelper({ nodePath: process.execPath, cliPath: bundled }, bundledHelper(arch));
  try {
    // A computed name keeps the bundler from inlining the package into our own bundle.
    const packageName = ['@anthropic-ai', 'sandbox-runtime', 'dist', 'cli.js'].join('/');
    const cliPath = createRequire(__filename).resolve(packageName);
    return withHelper(
      { nodePath: process.execPath, cliPath },
      existing(path.join(cliPath, '..', '..', 'vendor', 'seccomp', arch, 'apply-seccomp')),
    );
  } catch {
    return undefined;
  }
}

/**
 * Where a package of ours keeps the seccomp helper of this architecture: the editor's package for
 * a platform has it beside the runtime (vendor/seccomp/<arch>, where the runtime itself looks); the
 * CLI's npm package has it in an optional package of its platform, `@mcp-switchboard/sandbox-linux-<arch>`.
 */
function bundledHelper(arch: string): string | undefined {
  const beside = existing(path.join(__dirname, 'sandbox', 'vendor', 'seccomp', arch, 'apply-seccomp'));
  if (beside) return beside;
  try {
    return existing(createRequire(__filename).resolve(`@mcp-switchboard/sandbox-linux-${arch}/apply-seccomp`));
  } catch {
    return undefined;
  }
}

function existing(file: string): string | undefined {
  return fs.existsSync(file) ? file : undefined;
}

function withHelper(runtime: SandboxRuntime, seccompHelper: string | undefined): SandboxRuntime {
  return seccompHelper ? { ...runtime, seccompHelper } : runtime;
}

/**
 * The rules as the runtime's settings file spells them; the private temp folder is always writable.
 * The seccomp helper is named, not left for the runtime to look for (it would ask `npm root -g`, a
 * folder anyone with npm can write to).
 */
function runtimeSettings(rules: SandboxRules, privateTemp: string, seccompHelper: string | undefined): object {
  return {
    ...(seccompHelper ? { seccomp: { applyPath: seccompHelper } } : {}),
    network: { allowedDomains: [...rules.network.allowedDomains], deniedDomains: [...rules.network.deniedDomains] },
    filesystem: {
      denyRead: [...rules.filesystem.denyRead],
      allowWrite: [...rules.filesystem.allowWrite, privateTemp],
      denyWrite: [...rules.filesystem.denyWrite],
    },
  };
}

/**
 * Writes the server's settings file and returns the command line that runs it sandboxed. The
 * settings live beside, not inside, the folder the server may write, and are written anew on every
 * start, so a server cannot loosen the rules of its own next start.
 */
export function prepareSandboxedCommand(input: LaunchInput, runtime: SandboxRuntime): SandboxedCommand {
  const folder = serverFolder(input.stateRoot ?? os.tmpdir(), input.server);
  const privateTemp = path.join(folder, 'tmp');
  fs.mkdirSync(privateTemp, { recursive: true, mode: 0o700 });
  const settingsFile = path.join(folder, 'settings.json');
  fs.rmSync(settingsFile, { force: true });
  fs.writeFileSync(settingsFile, JSON.stringify(runtimeSettings(input.rules, privateTemp, runtime.seccompHelper), null, 2), {
    mode: 0o600,
    flag: 'wx',
  });
  // The server's own variables are set inside the sandbox with env(1): the runtime itself keeps the
  // real TMPDIR, where it makes its proxy's sockets (a long or server-writable path would not do).
  const assignments = Object.entries(serverVariables(input.env, input.rules, privateTemp)).map(([name, value]) => `${name}=${value}`);
  return {
    command: runtime.nodePath,
    // An absolute env(1): the server's PATH may be anything, and lookups happen inside the sandbox.
    args: [runtime.cliPath, '--settings', settingsFile, '--', '/usr/bin/env', ...assignments, input.command, ...input.args],
    env: { ...input.env, ELECTRON_RUN_AS_NODE: '1', SRT_DEBUG: '1' },
    privateTemp,
  };
}

/**
 * What the server gets besides its own environment (the runtime runs as Node even under Electron,
 * and reports its denials with SRT_DEBUG, filtered out of the server's stderr by stderrFilter.ts):
 * its temp files and package caches go to its private folder, since the user's own caches are
 * outside what it may write (and a shared cache written from inside would let it plant code that
 * later runs unsandboxed). A cache the environment names is kept only where the rules let the server
 * write it: one inherited from elsewhere (`npm start` sets `npm_config_cache` to ~/.npm for the
 * editor it starts) would leave `npx` failing on a read-only folder.
 */
function serverVariables(
  env: Readonly<Record<string, string | undefined>>,
  rules: SandboxRules,
  privateTemp: string,
): Record<string, string> {
  const roots = [...rules.filesystem.allowWrite, privateTemp];
  const writable = (dir: string) => roots.some((root) => path.relative(root, dir) === '') || isInsideFolders(dir, roots, path);
  const cacheIn = (name: string, value: string) => {
    const named = [name, name.toUpperCase()].filter((key) => env[key] !== undefined);
    if (named.length > 0 && named.every((key) => path.isAbsolute(env[key] as string) && writable(env[key] as string))) return {};
    return Object.fromEntries([name, ...named].map((key) => [key, value]));
  };
  const unlessSet = (name: string, value: string) =>
    env[name] === undefined && env[name.toUpperCase()] === undefined ? { [name]: value } : {};
  return {
    TMPDIR: privateTemp,
    TMP: privateTemp,
    TEMP: privateTemp,
    ...cacheIn('npm_config_cache', path.join(privateTemp, 'npm-cache')),
    ...cacheIn('UV_CACHE_DIR', path.join(privateTemp, 'uv-cache')),
    // Node 24 and later send fetch() through HTTP_PROXY with this; the sandbox's network is its proxy.
    ...unlessSet('NODE_USE_ENV_PROXY', '1'),
  };
}

/**
 * One folder per server under a per-user root that only we may enter: in a shared /tmp, another
 * user must not be able to pre-create it (or a link in its place) and so choose our files.
 */
function serverFolder(root: string, server: string): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const base = path.join(root, `mcp-switchboard-sandbox${uid === undefined ? '' : `-${uid}`}`);
  fs.mkdirSync(base, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(base);
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
    throw new Error(
      `${base} is not a private folder of this user (owner ${stat.uid}, mode ${(stat.mode & 0o777).toString(8)}); remove it and try again`,
    );
  }
  const id = createHash('sha256').update(server).digest('hex').slice(0, 16);
  const folder = path.join(base, id);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}
