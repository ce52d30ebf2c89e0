// The only door through which configuration code touches the disk, so that tests and the doctor CLI
// can point it at temp dirs or fakes, and so that size limits are enforced before a file is read.

import fs from 'node:fs/promises';

export type ReadTextResult =
  | { readonly kind: 'ok'; readonly text: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'error'; readonly message: string };

export interface ConfigFileSystem {
  /** Reads a UTF-8 file. Never throws: absence and every other failure come back as values. */
  readText(file: string, maxBytes: number): Promise<ReadTextResult>;
}

export const nodeFileSystem: ConfigFileSystem = {
  async readText(file, maxBytes) {
    let handle: fs.FileHandle | undefined;
    try {
      handle = await fs.open(file, 'r');
      const stat = await handle.stat();
      if (!stat.isFile()) return { kind: 'error', message: `${file} is not a file` };
      if (stat.size > maxBytes) {
        return { kind: 'error', message: `${file} is ${stat.size} bytes; the limit is ${maxBytes}` };
      }
      return { kind: 'ok', text: stripBom(await handle.readFile('utf8')) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
      return { kind: 'error', message: `cannot read ${file}: ${(error as Error).message}` };
    } finally {
      await handle?.close();
    }
  },
};

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
