import assert from 'node:assert/strict';
import { assertDiagnostics, expectInvalid, expectValid, loadOne } from './helpers';

describe('config: dev.watch', () => {
  it('takes a pattern or a list of them, as the editor writes it', async () => {
    const one = expectValid((await loadOne({ command: 'node', dev: { watch: 'src/**/*.ts' } })).server);
    assert.deepEqual(one.devWatch, ['src/**/*.ts']);
    const many = expectValid(
      (await loadOne({ command: 'node', dev: { watch: ['src/**', 'package.json', ''], debug: { type: 'node' } } })).server,
    );
    assert.deepEqual(many.devWatch, ['src/**', 'package.json']);
    assert.equal(expectValid((await loadOne({ command: 'node' })).server).devWatch, undefined);
  });

  it('refuses a wrong type or too many patterns, and names an unknown dev field', async () => {
    const wrong = await loadOne({ command: 'node', dev: { watch: 3 } });
    expectInvalid(wrong.server);
    const tooMany = await loadOne({ command: 'node', dev: { watch: Array.from({ length: 33 }, (_, index) => `p${index}`) } });
    assertDiagnostics(expectInvalid(tooMany.server).diagnostics, [
      { severity: 'error', path: 'servers.srv.dev.watch', messageIncludes: 'more than 32 patterns' },
    ]);
    const unknown = await loadOne({ command: 'node', dev: { watch: 'x', reload: true } });
    expectValid(unknown.server);
    assertDiagnostics(unknown.diagnostics, [{ severity: 'warning', path: 'servers.srv.dev.reload', messageIncludes: 'unknown' }]);
  });
});
