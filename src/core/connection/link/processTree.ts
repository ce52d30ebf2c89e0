// Ending a stdio server means ending everything it started: `npx` starts node, which may start a
// language server, which may start... Killing only the direct child leaves the rest running.
//
// Not tree-kill: it signals once and does not escalate, and it walks the tree at signal time —
// after the first SIGTERM a grandchild whose parent died has been re-parented and is no longer
// found. Here the whole tree is gathered first, then SIGTERM, then SIGKILL after a grace period.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { Logger } from '../../base/logging';
import { isProcessAlive, readProcStat } from '../../base/processes';

export { isProcessAlive };

export interface KillTreeOptions {
  /** Time between SIGTERM and SIGKILL. */
  readonly graceMs?: number;
  readonly logger?: Logger;
  readonly platform?: NodeJS.Platform;
  /** Called once the tree is known and before any signal: the place to close the root's stdin. */
  readonly onGathered?: () => void;
}

export const DEFAULT_KILL_GRACE_MS = 2000;

const POLL_MS = 25;
/** How long a killed child may stay a zombie, waiting for its living parent to reap it. */
const REAP_WAIT_MS = 250;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Parent of every process, from `ps` (Linux, macOS) or /proc when ps is missing (slim images). */
async function processParents(): Promise<Map<number, number>> {
  const parents = new Map<number, number>();
  try {
    const output = await new Promise<string>((resolve, reject) => {
      execFile('ps', ['-A', '-o', 'pid=,ppid='], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      );
    });
    for (const line of output.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (pid !== undefined && ppid !== undefined && Number.isInteger(pid) && Number.isInteger(ppid)) parents.set(pid, ppid);
    }
    return parents;
  } catch {
    for (const entry of fs.readdirSync('/proc', { withFileTypes: true })) {
      if (!/^\d+$/.test(entry.name)) continue;
      const ppid = readProcStat(Number(entry.name))?.ppid;
      if (ppid !== undefined) parents.set(Number(entry.name), ppid);
    }
    return parents;
  }
}

/**
 * `root` and its descendants, grouped by depth: [[root], [children], [grandchildren], ...].
 */
export async function processTreeLevels(root: number): Promise<number[][]> {
  const parents = await processParents();
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    if (pid === ppid) continue;
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const levels: number[][] = [[root]];
  const seen = new Set([root]);
  for (let level = levels[0]; level !== undefined && level.length > 0; level = levels[levels.length - 1]) {
    const next = level.flatMap((pid) => children.get(pid) ?? []).filter((pid) => !seen.has(pid));
    next.forEach((pid) => seen.add(pid));
    if (next.length === 0) break;
    levels.push(next);
  }
  return levels;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone (ESRCH) or not ours (EPERM): nothing more to do for this pid.
  }
}

async function waitUntilGone(pids: readonly number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (pids.every((pid) => !isProcessAlive(pid))) return true;
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}

/** Fully gone (ESRCH), not merely a zombie: its parent has reaped it. */
async function waitUntilReaped(pids: readonly number[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  const reaped = (pid: number) => {
    try {
      process.kill(pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };
  while (!pids.every(reaped) && Date.now() < deadline) await sleep(POLL_MS);
}

/**
 * Ends `root` and all its descendants: SIGTERM to all, and after `graceMs` SIGKILL to whatever is
 * still alive. Resolves when everything is gone (or SIGKILL has been sent, for processes that are
 * not ours to wait for). Deepest processes are signalled first: a child that dies while its parent
 * still runs is reaped by that parent; one whose parent died first is re-parented to init, which in
 * some containers never reaps, leaving a zombie behind.
 */
export async function killProcessTree(root: number, options: KillTreeOptions = {}): Promise<void> {
  const { graceMs = DEFAULT_KILL_GRACE_MS, logger, platform = process.platform, onGathered } = options;
  if (platform === 'win32') {
    onGathered?.();
    await killWindowsTree(root, graceMs);
    return;
  }
  let levels: number[][];
  try {
    levels = await processTreeLevels(root);
  } catch (error) {
    logger?.warn(`could not list child processes of ${root}, ending only it: ${String(error)}`);
    levels = [[root]];
  }
  const all = levels.flat();
  onGathered?.();
  logger?.debug(`ending process tree ${all.join(', ')} (SIGTERM)`);
  for (const level of [...levels].reverse()) level.forEach((pid) => signal(pid, 'SIGTERM'));
  if (await waitUntilGone(all, graceMs)) return;

  // Anything started during the grace period is gathered too.
  const survivors = all.filter(isProcessAlive);
  const lateLevels = await Promise.all(survivors.map((pid) => processTreeLevels(pid).catch(() => [[pid]])));
  const byDepth: number[][] = [];
  for (const tree of lateLevels) tree.forEach((level, depth) => (byDepth[depth] = [...(byDepth[depth] ?? []), ...level]));
  logger?.warn(`process tree did not exit within ${graceMs} ms of SIGTERM; sending SIGKILL to ${[...new Set(byDepth.flat())].join(', ')}`);
  for (const level of byDepth.reverse()) {
    const alive = [...new Set(level)].filter(isProcessAlive);
    alive.forEach((pid) => signal(pid, 'SIGKILL'));
    await waitUntilReaped(alive, REAP_WAIT_MS);
  }
  await waitUntilGone(all, graceMs);
}

function runTaskkill(args: string[]): Promise<void> {
  return new Promise((resolve) => execFile('taskkill', args, () => resolve()));
}

async function killWindowsTree(root: number, graceMs: number): Promise<void> {
  // taskkill /T walks the tree itself; without /F it asks windows to close, with /F it terminates.
  await runTaskkill(['/pid', String(root), '/T']);
  if (await waitUntilGone([root], graceMs)) return;
  await runTaskkill(['/pid', String(root), '/T', '/F']);
}
