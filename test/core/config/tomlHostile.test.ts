// Codex's config.toml from a hostile hand: keys of 200,000 dotted parts, as a key and as a table
// header, are refused with the line they are on instead of overflowing the stack.
import assert from 'node:assert/strict';
import { parseToml } from '../../../src/core/config/toml';

const SOURCE = { kind: 'codex', file: '/home/u/.codex/config.toml' } as const;
const deep = (parts: number) => Array.from({ length: parts }, (_, index) => `k${index}`).join('.');

describe('config.toml with hostile keys', () => {
  for (const [what, text, line] of [
    ['a dotted key', `[mcp_servers.x]\ncommand = "a"\n${deep(200_000)} = 1\n`, 3],
    ['a table header', `# servers\n[${deep(200_000)}]\na = 1\n`, 2],
    ['a quoted-dot-heavy key that is still too deep', `${Array.from({ length: 100 }, () => '"a.b"').join('.')} = 1\n`, 1],
    ['a key inside an inline table', `[mcp_servers.x]\nenv = { A = "1.2.3", ${deep(200_000)} = 1 }\n`, 2],
  ] as const) {
    it(`refuses ${what} nested past the limit, naming the line`, async () => {
      const parsed = await parseToml(text, SOURCE);
      assert.equal(parsed.value, undefined);
      assert.equal(parsed.diagnostics[0]?.line, line, JSON.stringify(parsed.diagnostics));
      assert.match(parsed.diagnostics[0]?.message ?? '', /TOML error at line \d+.*more than 64 parts/);
    });
  }

  it('values with many dots are values: floats in an array over lines, versions in strings', async () => {
    const floats = Array.from({ length: 100 }, (_, index) => `${index}.5`).join(', ');
    const parsed = await parseToml(`[mcp_servers.x]\ncommand = "x"\nweights = [\n  ${floats}\n]\nv = "${'1.'.repeat(100)}0"\n`, SOURCE);
    assert.deepEqual(parsed.diagnostics, []);
  });

  it('a key with dots inside quotes counts as one part', async () => {
    const parsed = await parseToml(`[mcp_servers."a.b.c.d"]\ncommand = "x"\n`, SOURCE);
    assert.deepEqual(parsed.value, { mcp_servers: { 'a.b.c.d': { command: 'x' } } });
  });
});
