import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { loadWithCodeCache, type CodeCacheOptions } from '../../../src/core/base/codeCache';

describe('loading a bundle with V8’s code cache (the extension’s entry)', () => {
  let dir: string;
  let folder: string;
  let bundle: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'code-cache-'));
    folder = path.join(dir, 'cache');
    bundle = path.join(dir, 'main.js');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A bundle whose answer is `word` (four letters: the same length each time), modified at `mtime` seconds. */
  function writeBundle(word: string, mtime: number): void {
    fs.writeFileSync(
      bundle,
      `const path = require('node:path');\nexports.word = () => ${JSON.stringify(word)};\nexports.where = () => path.basename(__dirname);\nexports.word();\n`,
    );
    fs.utimesSync(bundle, mtime, mtime);
  }

  let runs = 0;
  /**
   * Loads it, with the save scheduled by hand: returns the load and the scheduled save, if any.
   * Each load is of a copy in a folder of its own (same name, size and time): V8 keeps what it
   * compiled in memory by source and file name, and would answer a second load of the same file
   * from there without reading the cache at all.
   */
  function load(options: Partial<CodeCacheOptions> = {}) {
    runs += 1;
    const copy = path.join(dir, `run-${runs}`, 'main.js');
    fs.mkdirSync(path.dirname(copy));
    fs.copyFileSync(bundle, copy);
    const { mtime } = fs.statSync(bundle);
    fs.utimesSync(copy, mtime, mtime);
    const scheduled: Array<{ save: () => void; ms: number }> = [];
    const loaded = loadWithCodeCache(copy, createRequire(copy), {
      folder,
      saveAfterMs: 1234,
      schedule: (save, ms) => scheduled.push({ save, ms }),
      ...options,
    });
    return { loaded, scheduled, exports: loaded.exports as { word(): string; where(): string } };
  }

  it('makes the cache after the load (0600 in a 0700 folder), and the next load uses it; the bundle runs the same both times', () => {
    writeBundle('aaaa', 1_000);
    const first = load();
    assert.equal(first.loaded.use, 'made');
    assert.equal(first.exports.word(), 'aaaa');
    assert.equal(first.exports.where(), `run-${runs}`, 'its __dirname is the bundle’s folder');
    assert.deepEqual(
      first.scheduled.map((entry) => entry.ms),
      [1234],
    );
    assert.equal(fs.existsSync(first.loaded.file ?? ''), false, 'nothing is written before the save');
    first.scheduled[0]?.save();
    const file = first.loaded.file ?? '';
    assert.ok(fs.statSync(file).size > 0);
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
    }
    const second = load();
    assert.equal(second.loaded.use, 'used');
    assert.equal(second.loaded.file, file);
    assert.equal(second.exports.word(), 'aaaa');
    assert.deepEqual(second.scheduled, [], 'a load that used the cache writes none');
  });

  it('a rebuilt bundle of the same length gets its own cache and runs its own code; the oldest of more than four builds’ files goes', () => {
    writeBundle('aaaa', 1_000);
    const old = load();
    old.loaded.save();
    writeBundle('bbbb', 2_000);
    const rebuilt = load();
    assert.notEqual(rebuilt.loaded.file, old.loaded.file);
    assert.equal(rebuilt.loaded.use, 'made');
    assert.equal(rebuilt.exports.word(), 'bbbb', 'the old build’s compiled code must not run');
    rebuilt.loaded.save();
    // Two editors with two versions of the extension take turns: each keeps its own cache.
    assert.equal(fs.existsSync(old.loaded.file ?? ''), true);
    writeBundle('aaaa', 1_000);
    assert.equal(load().loaded.use, 'used', 'the first build’s cache is still there for it');
    const files = [old.loaded.file, rebuilt.loaded.file];
    // The first build's file is the oldest (files saved within a millisecond would tie).
    fs.utimesSync(old.loaded.file ?? '', 1, 1);
    for (const [index, word] of ['cccc', 'dddd', 'eeee'].entries()) {
      writeBundle(word, 3_000 + index);
      const next = load();
      next.loaded.save();
      files.push(next.loaded.file);
    }
    assert.deepEqual(
      files.map((file) => fs.existsSync(file ?? '')),
      [false, true, true, true, true],
    );
  });

  it('a cache V8 refuses (damaged) is read past, and made again', () => {
    writeBundle('aaaa', 1_000);
    const first = load();
    first.loaded.save();
    fs.writeFileSync(first.loaded.file ?? '', Buffer.alloc(4096, 7));
    const damaged = load();
    assert.equal(damaged.loaded.use, 'rejected');
    assert.equal(damaged.exports.word(), 'aaaa');
    damaged.scheduled[0]?.save();
    assert.equal(load().loaded.use, 'used');
  });

  it('ignores a cache file others may write (it is code that runs), and replaces it', function () {
    if (process.platform === 'win32') this.skip();
    writeBundle('aaaa', 1_000);
    const first = load();
    first.loaded.save();
    const file = first.loaded.file ?? '';
    fs.chmodSync(file, 0o666);
    const exposed = load();
    assert.equal(exposed.loaded.use, 'made', 'a group- or world-writable cache is not read');
    exposed.scheduled[0]?.save();
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(load().loaded.use, 'used');
  });

  it('reads past what is not a cache file: a FIFO in its place (which would block the open), and one too large', function () {
    if (process.platform === 'win32') this.skip();
    writeBundle('aaaa', 1_000);
    const first = load();
    const file = first.loaded.file ?? '';
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', ['-m', '600', file]);
    const fifo = load();
    assert.equal(fifo.loaded.use, 'made');
    assert.equal(fifo.exports.word(), 'aaaa');
    fs.rmSync(file);
    fs.writeFileSync(file, '', { mode: 0o600 });
    fs.truncateSync(file, 65 * 1024 * 1024);
    assert.equal(load().loaded.use, 'made', 'a 65 MB file is not read');
  });

  it('without a folder, or with one it cannot write, the bundle loads all the same', () => {
    writeBundle('aaaa', 1_000);
    const off = load({ folder: undefined });
    assert.equal(off.loaded.use, 'off');
    assert.deepEqual(off.scheduled, []);
    assert.equal(off.exports.word(), 'aaaa');
    fs.writeFileSync(path.join(dir, 'a-file'), '');
    const blocked = load({ folder: path.join(dir, 'a-file', 'cache') });
    assert.equal(blocked.exports.word(), 'aaaa');
    assert.doesNotThrow(() => blocked.loaded.save());
  });
});
