import fs from 'node:fs';
import path from 'node:path';

// Whether a process is still running. Signal 0 checks that the pid exists (EPERM: owned by another
// user), but an exited process whose parent has not reaped it yet also exists: on Linux its state
// in /proc is Z, and where init is slow to reap orphans (some containers), it may stay so for good.
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return error.code === 'EPERM';
  }
  return !isZombie(pid);
}

export function isZombie(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** The live (not zombie) members of a process group (Linux: from /proc; elsewhere whether any exists). */
export function groupAlive(group) {
  if (!fs.existsSync('/proc/self/stat')) {
    try {
      process.kill(-group, 0);
      return true;
    } catch (error) {
      return error.code === 'EPERM';
    }
  }
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === group && fields[0] !== 'Z') return true;
    } catch {
      // Gone between the listing and the read.
    }
  }
  return false;
}

/** SIGTERM to a process group, then SIGKILL to whatever of it is left after a grace period. */
export async function endProcessGroup(group, graceMs = 3000) {
  const signal = (name) => {
    try {
      process.kill(-group, name);
    } catch {
      // Gone already.
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(group) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (groupAlive(group)) signal('SIGKILL');
  const killDeadline = Date.now() + 2000;
  while (groupAlive(group) && Date.now() < killDeadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Ends the machine host of a run's folder, if one runs (SIGTERM: it stops its servers; then SIGKILL). */
export async function endMachineHost(hostDir) {
  let pid;
  try {
    pid = JSON.parse(fs.readFileSync(path.join(hostDir, 'host.json'), 'utf8')).pid;
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || !isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let waited = 0; waited < 5000 && isAlive(pid); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}
