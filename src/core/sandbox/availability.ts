// Whether a sandbox can run here, checked before a sandboxed server starts. A sandbox that was
// asked for and cannot run never falls back to running the server without one (fail closed): the
// caller leaves the server stopped with `reason`, and `fix` says what to do about it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type SandboxCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly fix: string };

export interface AvailabilityInput {
  readonly platform: NodeJS.Platform;
  /** PATH as the sandbox runtime will see it (the server's environment). */
  readonly searchPath: string;
}

const TURN_OFF = 'or turn the sandbox off for this server ("sandboxEnabled": false)';
/** A bubblewrap that cannot create namespaces says so at once; a hang is bounded anyway. */
const PROBE_TIMEOUT_MS = 10_000;

/** bwrap binaries that created a sandbox once: asked again only after a failure, so an install heals. */
const provenBubblewraps = new Set<string>();

export async function checkSandbox(input: AvailabilityInput): Promise<SandboxCheck> {
  switch (input.platform) {
    case 'linux':
      return checkLinux(input.searchPath);
    case 'darwin':
      return checkMac(input.searchPath);
    default:
      return {
        ok: false,
        reason: `sandboxed servers are not supported on ${platformName(input.platform)} (the sandbox uses bubblewrap on Linux and Seatbelt on macOS)`,
        fix: `Run the server on Linux, macOS or in WSL, ${TURN_OFF}`,
      };
  }
}

async function checkLinux(searchPath: string): Promise<SandboxCheck> {
  const missing = LINUX_TOOLS.filter((tool) => findOnPath(tool.binary, searchPath) === undefined);
  if (missing.length > 0) {
    const packages = missing.map((tool) => tool.debianPackage).join(' ');
    return {
      ok: false,
      reason: `the sandbox needs ${missing.map((tool) => `${tool.name} (\`${tool.binary}\`)`).join(', ')}, not found on PATH`,
      fix: `Install ${missing.length > 1 ? 'them' : 'it'} (Debian/Ubuntu: \`sudo apt install ${packages}\`; Fedora: \`sudo dnf install ${packages}\`), ${TURN_OFF}`,
    };
  }
  const bwrap = findOnPath('bwrap', searchPath) as string;
  if (provenBubblewraps.has(bwrap)) return { ok: true };
  const probe = await probeBubblewrap(bwrap);
  if (probe === undefined) {
    provenBubblewraps.add(bwrap);
    return { ok: true };
  }
  return {
    ok: false,
    reason: `bubblewrap cannot create a sandbox here: ${probe}`,
    fix: `Allow unprivileged user namespaces (\`sudo sysctl kernel.unprivileged_userns_clone=1\`; on Ubuntu 24.04 and later, an AppArmor profile for bwrap), or run the editor outside a container that forbids them, ${TURN_OFF}`,
  };
}

async function checkMac(searchPath: string): Promise<SandboxCheck> {
  if (!isExecutable('/usr/bin/sandbox-exec')) {
    return { ok: false, reason: 'macOS Seatbelt (`/usr/bin/sandbox-exec`) is missing', fix: `Use a macOS with sandbox-exec, ${TURN_OFF}` };
  }
  if (findOnPath('rg', searchPath) === undefined) {
    return {
      ok: false,
      reason: 'the sandbox needs ripgrep (`rg`), not found on PATH',
      fix: `Install it (\`brew install ripgrep\`), ${TURN_OFF}`,
    };
  }
  return { ok: true };
}

const LINUX_TOOLS = [
  { name: 'bubblewrap', binary: 'bwrap', debianPackage: 'bubblewrap' },
  { name: 'socat', binary: 'socat', debianPackage: 'socat' },
  { name: 'ripgrep', binary: 'rg', debianPackage: 'ripgrep' },
] as const;

/**
 * The namespaces the sandbox runtime asks bubblewrap for: a container without user namespaces, or
 * a kernel that forbids them to unprivileged users, fails here with bubblewrap's own message.
 */
function probeBubblewrap(bwrap: string): Promise<string | undefined> {
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-net',
    '--unshare-pid',
    '--die-with-parent',
    '--',
    'true',
  ];
  return new Promise((resolve) => {
    execFile(bwrap, args, { timeout: PROBE_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (!error) return resolve(undefined);
      const said = String(stderr).trim().split('\n').pop();
      resolve(said || error.message);
    });
  });
}

export function findOnPath(binary: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, binary);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function platformName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'Windows' : platform;
}

/**
 * Without its seccomp helper the runtime would still start, but a server could then reach any Unix
 * socket (the Docker socket is root on the host): the sandbox does not run half-closed.
 */
export function missingSeccompHelper(arch: string): string {
  const reason = ['x64', 'arm64'].includes(arch)
    ? `its seccomp helper for linux-${arch}, which keeps a sandboxed server off Unix sockets, is missing from this installation. Install the linux-${arch} package of MCP Switchboard (the editor installs it by itself from the Marketplace; for the CLI, npm installs @mcp-switchboard/sandbox-linux-${arch} unless optional packages are left out)`
    : `it has no seccomp helper for linux-${arch} (only x64 and arm64), and without one a sandboxed server could reach any Unix socket`;
  return `sandbox unavailable: ${reason}; or turn the sandbox off for this server ("sandboxEnabled": false)`;
}
