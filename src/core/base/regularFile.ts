// Reading a file that someone else may have replaced with something hostile: opened without
// waiting (a FIFO would otherwise block until a writer comes, holding a thread no signal frees),
// then checked to be a regular file of bounded size before a byte is read.
import fs from 'node:fs';

/** O_NONBLOCK where the platform has it (not on Windows, where there are no FIFOs to open). */
export const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** The file's text; undefined when it does not exist. Throws, saying why, for anything that is not a regular file of at most `maxBytes`. */
export function readRegularFileSync(file: string, maxBytes: number): string | undefined {
  let descriptor: number;
  try {
    descriptor = fs.openSync(file, fs.constants.O_RDONLY | NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fs.fstatSync(descriptor);
    if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
    if (stat.size > maxBytes) throw new Error(`${file} is ${stat.size} bytes; the limit is ${maxBytes}`);
    return fs.readFileSync(descriptor, 'utf8');
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Writes a file only this user can read (0600), whole or not at all: a reader never sees half of it. */
export function writePrivateFileSync(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.rmSync(temporary, { force: true });
  fs.writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
  fs.renameSync(temporary, file);
}
