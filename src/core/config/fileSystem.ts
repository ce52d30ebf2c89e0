// The only door through which configuration code touches the disk, so that tests and the doctor CLI
// can point it at temp dirs or fakes, and so that size limits are enforced before a file is read.

import { constants as fsConstants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { NONBLOCK } from '../base/regularFile';

export function describeKind(stat: Stats): string {
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

export type ReadTextResult =
  { readonly kind: 'ok'; readonly text: string } | { readonly kind: 'missing' } | { readonly kind: 'error'; readonly message: string };

export interface ConfigFileSystem {
  /** Reads a UTF-8 file. Never throws: absence and every other failure come back as values. */
  readText(file: string, maxBytes: number): Promise<ReadTextResult>;
}

export const nodeFileSystem: ConfigFileSystem = {
  async readText(file, maxBytes) {
    let handle: fs.FileHandle | undefined;
    try {
      // Non-blocking, then checked: opening a FIFO (or a device) for reading would otherwise wait for
      // a writer forever, and the read would hold a thread that no signal can free.
      handle = await fs.open(file, fsConstants.O_RDONLY | NONBLOCK);
      const stat = await handle.stat();
      if (!stat.isFile())
        return { kind: 'error', message: `${file} is not a file (${describeKind(stat)}); Switchboard reads configuration from files only` };
      if (stat.size > maxBytes) {
        return { kind: 'error', message: `${file} is ${stat.size} bytes; the limit is ${maxBytes}` };
      }
      const bytes = await handle.readFile();
      const encoding = unsupportedEncoding(bytes);
      if (encoding) return { kind: 'error', message: `${file} is encoded as ${encoding}; save it as UTF-8` };
      return { kind: 'ok', text: stripBom(bytes.toString('utf8')) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
      return { kind: 'error', message: `cannot read ${file}: ${(error as Error).message}` };
    } finally {
      await handle?.close();
    }
  },
};

/** UTF-16 and UTF-32 (by byte-order mark, or by the NUL bytes their ASCII leaves), else undefined. */
export function unsupportedEncoding(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe) return c === 0 && d === 0 ? 'UTF-32 (little-endian)' : 'UTF-16 (little-endian)';
  if (a === 0xfe && b === 0xff) return 'UTF-16 (big-endian)';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'UTF-32 (big-endian)';
  const head = bytes.subarray(0, 64);
  if (head.length >= 2 && head.includes(0))
    return head[0] === 0 ? 'UTF-16 (big-endian, no byte-order mark)' : 'UTF-16 (little-endian, no byte-order mark)';
  return undefined;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
