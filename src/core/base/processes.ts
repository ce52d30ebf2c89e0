// What a process id says of its process, on the OS's own word: whether it still runs, and (on
// Linux, from /proc) its state and parent.
import fs from 'node:fs';

/** Its state letter and parent, from /proc/<pid>/stat; undefined where there is no /proc or no such process. */
export function readProcStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces; fields after it are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** Whether `pid` still runs. A zombie (exited, not yet reaped) counts as gone. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else, so it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return readProcStat(pid)?.state !== 'Z';
}

/**
 * Whether `pid` is stopped (SIGSTOP, a debugger): it will not answer until continued. Linux only
 * (its /proc state T or t); elsewhere false, and a caller falls back to waiting for an answer.
 */
export function isProcessStopped(pid: number): boolean {
  const state = readProcStat(pid)?.state;
  return state === 'T' || state === 't';
}
