import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../../..');

describe('README screenshots', () => {
  it('are each one a UI test takes, and every one the README shows exists', async () => {
    const { README_SCREENSHOTS } = (await import(path.join(repoRoot, 'scripts', 'screenshots.mjs'))) as {
      README_SCREENSHOTS: Record<string, string>;
    };
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const shown = [...readme.matchAll(/\(media\/screenshots\/([\w-]+)\.png\)/g)].map((match) => match[1] as string);
    assert.ok(shown.length > 10, `${shown.length} screenshots in the README`);
    for (const name of shown) {
      assert.ok(name in README_SCREENSHOTS, `${name}.png is in the README but no UI test takes it (scripts/screenshots.mjs)`);
      assert.ok(fs.existsSync(path.join(repoRoot, 'media', 'screenshots', `${name}.png`)), `media/screenshots/${name}.png is missing`);
    }
    const tests = fs
      .readdirSync(path.join(repoRoot, 'test', 'ui'))
      .map((file) => fs.readFileSync(path.join(repoRoot, 'test', 'ui', file), 'utf8'))
      .join('\n');
    for (const taken of Object.values(README_SCREENSHOTS)) assert.ok(tests.includes(`'${taken}')`), `no UI test takes "${taken}"`);
  });
});
