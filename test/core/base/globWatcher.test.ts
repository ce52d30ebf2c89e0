// The dev.watch file watcher on real folders: new files, files in folders made after it started,
// a watched folder that does not exist yet or is deleted and made again, and what it ignores.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { GlobWatcher } from '../../../src/core/base/globWatcher';
import { Cleanup, tempDir } from '../support/cleanup';

/** The changes the watcher reports, and a promise for the first that matches. */
function recorder() {
  const seen: string[] = [];
  const waiting: Array<{ pattern: RegExp; resolve: (file: string) => void }> = [];
  return {
    seen,
    changed: (file: string) => {
      seen.push(file);
      for (const wait of waiting.splice(0)) {
        if (wait.pattern.test(file)) wait.resolve(file);
        else waiting.push(wait);
      }
    },
    /** Resolves on a matching change; `poke` makes changes until then (a watch arms asynchronously). */
    next(pattern: RegExp, poke: () => void): Promise<string> {
      const already = seen.find((file) => pattern.test(file));
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        let pokes = 0;
        const timer = setInterval(
          () =>
            ++pokes > 40 ? (clearInterval(timer), reject(new Error(`no change matching ${pattern} (saw: ${seen.join(', ')})`))) : poke(),
          100,
        );
        waiting.push({ pattern, resolve: (file) => (clearInterval(timer), resolve(file)) });
        poke();
      });
    },
  };
}

describe('GlobWatcher (dev.watch)', function () {
  this.timeout(15_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('reports matching files, also in folders made after it started, and ignores the rest', async () => {
    const folder = tempDir(cleanup);
    fs.mkdirSync(path.join(folder, 'src'));
    const changes = recorder();
    const watcher = new GlobWatcher(folder, ['src/**/*.js'], { changed: changes.changed });
    cleanup.add(() => watcher.dispose());
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not watched');
    fs.writeFileSync(path.join(folder, 'src', 'readme.md'), 'not matching');
    let n = 0;
    assert.equal(
      await changes.next(/^src\/index\.js$/, () => fs.writeFileSync(path.join(folder, 'src', 'index.js'), `${n++}`)),
      'src/index.js',
    );
    fs.mkdirSync(path.join(folder, 'src', 'lib', 'deep'), { recursive: true });
    assert.equal(
      await changes.next(/^src\/lib\/deep\/tool\.js$/, () =>
        fs.writeFileSync(path.join(folder, 'src', 'lib', 'deep', 'tool.js'), `${n++}`),
      ),
      'src/lib/deep/tool.js',
    );
    assert.ok(!changes.seen.some((file) => /notes\.txt|readme\.md/.test(file)), changes.seen.join(', '));
  });

  it('waits for a folder that does not exist yet, and watches it again after it is deleted and made again', async () => {
    const folder = tempDir(cleanup);
    const changes = recorder();
    const watcher = new GlobWatcher(folder, ['dist/**'], { changed: changes.changed });
    cleanup.add(() => watcher.dispose());
    let n = 0;
    const build = () => {
      fs.mkdirSync(path.join(folder, 'dist'), { recursive: true });
      fs.writeFileSync(path.join(folder, 'dist', 'out.js'), `${n++}`);
    };
    assert.equal(await changes.next(/^dist\/out\.js$/, build), 'dist/out.js');
    fs.rmSync(path.join(folder, 'dist'), { recursive: true });
    changes.seen.length = 0;
    assert.equal(await changes.next(/^dist\/out\.js$/, build), 'dist/out.js');
  });

  it('stops reporting once disposed', async () => {
    const folder = tempDir(cleanup);
    const changes = recorder();
    const watcher = new GlobWatcher(folder, ['*.json'], { changed: changes.changed });
    let n = 0;
    await changes.next(/^a\.json$/, () => fs.writeFileSync(path.join(folder, 'a.json'), `${n++}`));
    watcher.dispose();
    const count = changes.seen.length;
    fs.writeFileSync(path.join(folder, 'b.json'), '{}');
    // A later change that would match, through a watcher known to work, proves time has passed.
    const control = recorder();
    const other = new GlobWatcher(folder, ['*.txt'], { changed: control.changed });
    cleanup.add(() => other.dispose());
    await control.next(/^c\.txt$/, () => fs.writeFileSync(path.join(folder, 'c.txt'), `${n++}`));
    assert.equal(changes.seen.length, count);
  });
});
