// Counting the processes a test started, by an argument only they carry (a fixture's `--name`),
// across whatever started them: a window, an agent, the machine host.
import fs from 'node:fs';

/** Pids of live (not zombie) processes whose command line has `mark` as a whole argument (Linux: /proc). */
export function processesWith(mark: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
        return fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(mark);
      } catch {
        // Gone meanwhile.
        return false;
      }
    })
    .map(Number);
}
