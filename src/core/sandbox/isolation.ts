// A stdio server kept apart from the host that runs it, without sandboxing it: on a team gateway,
// every stdio upstream runs in its own PID namespace (it cannot read the gateway's environment,
// command line or memory through /proc) with the gateway's own secret files hidden (bound over with
// an empty file): the cluster key that seals what the replicas share, the gateway's token, the
// credentials of its upstreams. Everything else (the file system, the network, the user) is as it
// would be without it. A sandboxed server gets the same files in its sandbox's denyRead instead.
//
// Linux only, with bubblewrap (the team gateway's image has it). Where it cannot run, a server of a
// host that has such secrets does not start (fail closed), with the reason and the fix.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { findOnPath } from './availability';

export type IsolationCheck = { readonly ok: true; readonly bwrap: string } | { readonly ok: false; readonly reason: string };

/** bwrap binaries that isolated a process once. */
const proven = new Set<string>();
const PROBE_TIMEOUT_MS = 10_000;

/** Whether stdio servers can be isolated here, and with which bubblewrap. */
export async function checkIsolation(platform: NodeJS.Platform, searchPath: string): Promise<IsolationCheck> {
  if (platform !== 'linux')
    return { ok: false, reason: `keeping a stdio server from the gateway's secrets needs Linux with bubblewrap (this is ${platform})` };
  const bwrap = findOnPath('bwrap', searchPath);
  if (bwrap === undefined)
    return { ok: false, reason: 'keeping a stdio server from the gateway’s secrets needs bubblewrap (`bwrap`), not found on PATH' };
  if (proven.has(bwrap)) return { ok: true, bwrap };
  const failure = await new Promise<string | undefined>((resolve) => {
    execFile(bwrap, [...isolationArgs([]), '--', 'true'], { timeout: PROBE_TIMEOUT_MS }, (error, _stdout, stderr) => {
      resolve(error ? String(stderr).trim().split('\n').pop() || error.message : undefined);
    });
  });
  if (failure !== undefined) return { ok: false, reason: `bubblewrap cannot create a PID namespace here: ${failure}` };
  proven.add(bwrap);
  return { ok: true, bwrap };
}

/** What to spawn instead of `command`: bubblewrap around it, with `hidden` (existing files) bound over. */
export function isolatedCommand(
  bwrap: string,
  command: string,
  args: readonly string[],
  hidden: readonly string[],
): { readonly command: string; readonly args: readonly string[] } {
  return { command: bwrap, args: [...isolationArgs(hiddenPaths(hidden)), '--', command, ...args] };
}

function isolationArgs(hidden: readonly string[]): string[] {
  return [
    // The whole file system as it is, devices included: the server is not sandboxed, only kept apart.
    '--dev-bind',
    '/',
    '/',
    '--unshare-pid',
    '--proc',
    '/proc',
    // The namespace's processes end with the host.
    '--die-with-parent',
    ...hidden.flatMap((file) => ['--ro-bind', '/dev/null', file]),
  ];
}

/**
 * Each file as named and as resolved (a mounted Secret is a symlink into a dated folder): bound
 * over where it exists. A missing one is skipped: a mount point would have to be created on the
 * host's own file system.
 */
export function hiddenPaths(files: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const file of files) {
    try {
      const real = fs.realpathSync(file);
      if (!fs.statSync(real).isFile()) continue;
      paths.add(real);
      if (fs.lstatSync(file).isFile()) paths.add(file);
    } catch {
      // Not there: nothing to hide.
    }
  }
  return [...paths];
}
