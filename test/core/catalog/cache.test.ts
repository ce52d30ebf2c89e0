import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_CACHE_TTL_MS,
  MemoryToolCacheStorage,
  toolCacheKey,
  TOOL_CACHE_FORMAT,
  type ToolCacheEntry,
  type ToolCacheStorage,
} from '../../../src/core/catalog/cache';
import { FolderToolCacheStorage } from '../../../src/core/catalog/folderStorage';
import { ToolCache } from '../../../src/core/catalog/toolCache';
import { Cleanup, MemoryLogger, tempDir } from '../connection/helpers';
import { deepFreeze, FakeClock, tools } from './helpers';

const DAY = 24 * 60 * 60 * 1000;

function entry(server: string, hash: string, fetchedAt: number, names = ['a', 'b']): ToolCacheEntry {
  return { format: TOOL_CACHE_FORMAT, server, connectionHash: hash, fetchedAt, tools: tools(...names) };
}

function createCache(storage: ToolCacheStorage, clock: FakeClock, ttlMs = DEFAULT_CACHE_TTL_MS) {
  const logger = new MemoryLogger();
  return { cache: new ToolCache({ storage, ttlMs, clock, logger }), logger };
}

describe('catalog tool cache', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('defaults to a 7-day lifetime', () => {
    assert.equal(DEFAULT_CACHE_TTL_MS, 7 * DAY);
  });

  it('hits for the same server and connection hash, misses for a changed hash', async () => {
    const clock = new FakeClock();
    const storage = new MemoryToolCacheStorage();
    const { cache } = createCache(storage, clock);
    await cache.load();
    cache.store('git', 'hash-1', tools('log', 'status'), clock.now());
    assert.deepEqual(
      cache.lookup('git', 'hash-1')?.tools.map((item) => item.name),
      ['log', 'status'],
    );
    assert.equal(cache.lookup('git', 'hash-2'), undefined);
    assert.equal(cache.lookup('other', 'hash-1'), undefined);
    await cache.idle();
    assert.deepEqual(await storage.keys(), [toolCacheKey('git', 'hash-1')]);
  });

  it('keeps the fetch time and persists across instances', async () => {
    const clock = new FakeClock();
    const storage = new MemoryToolCacheStorage();
    const first = createCache(storage, clock).cache;
    first.store('git', 'h', tools('log'), clock.now() - 1000);
    await first.idle();
    const second = createCache(storage, clock).cache;
    await second.load();
    assert.equal(second.lookup('git', 'h')?.fetchedAt, clock.now() - 1000);
  });

  it('expires entries after the TTL, in memory and in storage', async () => {
    const clock = new FakeClock();
    const storage = new MemoryToolCacheStorage();
    const { cache } = createCache(storage, clock, 2 * DAY);
    await cache.load();
    cache.store('git', 'h', tools('log'), clock.now());
    clock.advance(2 * DAY - 1);
    assert.ok(cache.lookup('git', 'h'), 'still fresh a millisecond before expiry');
    clock.advance(1);
    assert.equal(cache.lookup('git', 'h'), undefined);
    await cache.idle();
    assert.deepEqual(await storage.keys(), []);
  });

  it('drops expired and unusable entries when loading, and logs the unusable ones', async () => {
    const clock = new FakeClock();
    const storage = new MemoryToolCacheStorage();
    await storage.set(toolCacheKey('old', 'h'), entry('old', 'h', clock.now() - 8 * DAY));
    await storage.set(toolCacheKey('future', 'h'), entry('future', 'h', clock.now() + 30 * DAY));
    await storage.set(toolCacheKey('fresh', 'h'), entry('fresh', 'h', clock.now() - DAY));
    storage.setRaw(toolCacheKey('garbage', 'h'), 'not an entry');
    storage.setRaw(toolCacheKey('old-format', 'h'), { ...entry('old-format', 'h', clock.now()), format: 0 });
    storage.setRaw(toolCacheKey('empty', 'h'), { ...entry('empty', 'h', clock.now()), tools: [] });
    storage.setRaw(toolCacheKey('nameless', 'h'), { ...entry('nameless', 'h', clock.now()), tools: [{ description: 'x' }] });
    storage.setRaw('wrong-key', entry('fresh', 'h', clock.now()));
    const { cache, logger } = createCache(storage, clock);
    await cache.load();
    assert.equal(cache.size, 1);
    assert.ok(cache.lookup('fresh', 'h'));
    assert.deepEqual(await storage.keys(), [toolCacheKey('fresh', 'h')]);
    for (const key of ['garbage', 'old-format', 'empty', 'nameless', 'wrong-key'])
      assert.match(logger.text(), new RegExp(`ignoring entry .*${key}`));
    assert.doesNotMatch(logger.text(), /h:(old|future)\b(?!-)/, 'expiry is normal, not worth a warning');
  });

  it('never stores an empty list, and an empty list does not replace a good entry', async () => {
    const clock = new FakeClock();
    const storage = new MemoryToolCacheStorage();
    const { cache } = createCache(storage, clock);
    assert.equal(cache.store('s', 'h', [], clock.now()), undefined);
    await cache.idle();
    assert.deepEqual(await storage.keys(), []);
    cache.store('s', 'h', tools('a'), clock.now());
    cache.store('s', 'h', [], clock.now());
    await cache.idle();
    assert.deepEqual(
      ((await storage.get(toolCacheKey('s', 'h'))) as ToolCacheEntry).tools.map((item) => item.name),
      ['a'],
    );
  });

  it('never changes the list it is given, and hands out frozen entries', async () => {
    const clock = new FakeClock();
    const { cache } = createCache(new MemoryToolCacheStorage(), clock);
    const list = deepFreeze(tools('a', 'b'));
    const before = JSON.stringify(list);
    const stored = cache.store('s', 'h', list, clock.now());
    assert.equal(JSON.stringify(list), before);
    assert.ok(stored && Object.isFrozen(stored) && Object.isFrozen(stored.tools[0]?.inputSchema));
    assert.throws(() => {
      (stored.tools as unknown as unknown[]).push(1);
    }, TypeError);
  });

  it('drops one server (every hash) or everything, from memory and storage', async () => {
    const clock = new FakeClock();
    const storage = new MemoryToolCacheStorage();
    await storage.set(toolCacheKey('a', 'old'), entry('a', 'old', clock.now()));
    const { cache } = createCache(storage, clock);
    await cache.load();
    cache.store('a', 'new', tools('x'), clock.now());
    cache.store('b', 'h', tools('y'), clock.now());
    cache.drop('a');
    assert.equal(cache.lookup('a', 'new'), undefined);
    await cache.idle();
    assert.deepEqual(await storage.keys(), [toolCacheKey('b', 'h')]);
    storage.setRaw('unparsable', 'junk');
    cache.dropAll();
    await cache.idle();
    assert.deepEqual(await storage.keys(), []);
    assert.equal(cache.size, 0);
  });

  it('does not let the initial load bring back what was stored or dropped while it ran', async () => {
    const clock = new FakeClock();
    const storage = new MemoryToolCacheStorage();
    await storage.set(toolCacheKey('kept', 'h'), entry('kept', 'h', clock.now() - 5000, ['old']));
    await storage.set(toolCacheKey('dropped', 'h'), entry('dropped', 'h', clock.now()));
    const { cache } = createCache(storage, clock);
    const loading = cache.load();
    cache.store('kept', 'h', tools('new'), clock.now());
    cache.drop('dropped');
    await loading;
    await cache.idle();
    assert.deepEqual(
      cache.lookup('kept', 'h')?.tools.map((item) => item.name),
      ['new'],
    );
    assert.equal(cache.lookup('dropped', 'h'), undefined);
    assert.deepEqual(await storage.keys(), [toolCacheKey('kept', 'h')]);
  });

  it('logs storage failures instead of throwing', async () => {
    const clock = new FakeClock();
    const failing: ToolCacheStorage = {
      get: async () => undefined,
      set: async () => {
        throw new Error('disk full');
      },
      delete: async () => undefined,
      keys: async () => [],
    };
    const { cache, logger } = createCache(failing, clock);
    cache.store('s', 'h', tools('a'), clock.now());
    await cache.idle();
    assert.match(logger.text(), /could not write .*disk full/);
    assert.ok(cache.lookup('s', 'h'), 'the memory copy still serves');
  });

  describe('FolderToolCacheStorage', () => {
    it('round-trips entries, including keys with any characters', async () => {
      const dir = path.join(tempDir(cleanup), 'nested', 'cache');
      const storage = new FolderToolCacheStorage(dir);
      assert.deepEqual(await storage.keys(), [], 'a missing folder is an empty cache');
      const key = toolCacheKey('my server/ü:*?"<>|', 'abc');
      const value = entry('my server/ü:*?"<>|', 'abc', 123);
      await storage.set(key, value);
      assert.deepEqual(await storage.get(key), value);
      assert.deepEqual(await storage.keys(), [key]);
      await storage.set(key, { ...value, fetchedAt: 456 });
      assert.equal(((await storage.get(key)) as ToolCacheEntry).fetchedAt, 456);
      assert.deepEqual(
        fs.readdirSync(dir).filter((name) => name.endsWith('.tmp')),
        [],
        'no temporary files left behind',
      );
      await storage.delete(key);
      await storage.delete(key);
      assert.equal(await storage.get(key), undefined);
      assert.deepEqual(fs.readdirSync(dir), []);
    });

    it('reads each file once when keys() is followed by get(), and never serves a replaced entry', async () => {
      const dir = tempDir(cleanup);
      const writer = new FolderToolCacheStorage(dir);
      await writer.set('a', entry('a', 'h', 1));
      await writer.set('b', entry('b', 'h', 2));
      const storage = new FolderToolCacheStorage(dir);
      const reads: string[] = [];
      const readFile = fs.promises.readFile;
      fs.promises.readFile = (async (...args: Parameters<typeof readFile>) => {
        reads.push(String(args[0]));
        return readFile(...args);
      }) as typeof readFile;
      try {
        assert.deepEqual((await storage.keys()).sort(), ['a', 'b']);
        assert.equal(((await storage.get('a')) as ToolCacheEntry).fetchedAt, 1);
        assert.equal(((await storage.get('b')) as ToolCacheEntry).fetchedAt, 2);
        assert.equal(reads.length, 2, 'one read per file');
        assert.equal(((await storage.get('a')) as ToolCacheEntry).fetchedAt, 1, 'a later get() reads the file again');
        assert.equal(reads.length, 3);
        await storage.keys();
        await storage.set('a', entry('a', 'h', 3));
        await storage.delete('b');
        assert.equal(((await storage.get('a')) as ToolCacheEntry).fetchedAt, 3);
        assert.equal(await storage.get('b'), undefined);
      } finally {
        fs.promises.readFile = readFile;
      }
    });

    it('tolerates a corrupt file: reads as missing, is skipped and removed by keys()', async () => {
      const dir = tempDir(cleanup);
      const storage = new FolderToolCacheStorage(dir);
      await storage.set('good', entry('good', 'h', 1));
      const corrupt = storage.fileFor('broken');
      fs.writeFileSync(corrupt, '{"key":"broken","entry":{"format":1,');
      fs.writeFileSync(path.join(dir, 'unrelated.txt'), 'not ours');
      assert.equal(await storage.get('broken'), undefined);
      assert.deepEqual(await storage.keys(), ['good']);
      assert.equal(fs.existsSync(corrupt), false);
      assert.ok(fs.existsSync(path.join(dir, 'unrelated.txt')), 'files that are not entries are left alone');
    });

    it('writes atomically: concurrent writers of one key leave one complete entry', async () => {
      const dir = tempDir(cleanup);
      const storage = new FolderToolCacheStorage(dir);
      const many = Array.from({ length: 20 }, (_, index) =>
        entry(
          's',
          'h',
          index,
          Array.from({ length: 50 }, (__, n) => `tool_${index}_${n}`),
        ),
      );
      await Promise.all(many.map((value) => storage.set('k', value)));
      const stored = (await storage.get('k')) as ToolCacheEntry;
      assert.equal(stored.tools.length, 50);
      assert.ok(
        stored.tools.every((item) => item.name.startsWith(`tool_${stored.fetchedAt}_`)),
        'not a mix of two writes',
      );
      assert.deepEqual(fs.readdirSync(dir).length, 1);
    });

    it('serves the tool cache end to end, ignoring a damaged entry', async () => {
      const dir = tempDir(cleanup);
      const clock = new FakeClock();
      const first = createCache(new FolderToolCacheStorage(dir), clock).cache;
      first.store('git', 'h', tools('log'), clock.now());
      await first.idle();
      const damaged = new FolderToolCacheStorage(dir);
      await damaged.set(toolCacheKey('bad', 'h'), { ...entry('bad', 'h', clock.now()), tools: 'oops' } as unknown as ToolCacheEntry);
      const { cache, logger } = createCache(new FolderToolCacheStorage(dir), clock);
      await cache.load();
      assert.deepEqual(
        cache.lookup('git', 'h')?.tools.map((item) => item.name),
        ['log'],
      );
      assert.equal(cache.lookup('bad', 'h'), undefined);
      assert.match(logger.text(), /ignoring entry .*bad/);
    });
  });
});
