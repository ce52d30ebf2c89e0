import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { catalogSettingsFrom, settingsFileLookup } from '../../../src/core/catalog/settings';

const DAY_MS = 24 * 60 * 60 * 1000;
const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
};
const declared = (key: string) => manifest.contributes.configuration.properties[`mcpSwitchboard.${key}`]?.default;

describe('tool settings (one reader for the editor and the CLI)', () => {
  it('falls back to exactly the defaults package.json declares', () => {
    const settings = catalogSettingsFrom(() => undefined);
    assert.deepEqual(settings.globalDeny, declared('tools.deny'));
    assert.deepEqual(settings.disabled, declared('tools.disabled'));
    assert.equal(settings.maxExposed, declared('tools.maxExposed'));
    assert.equal(settings.cacheTtlMs, (declared('tools.cacheTtlDays') as number) * DAY_MS);
  });

  it('reads full keys from a settings file and ignores values of the wrong type', () => {
    const lookup = settingsFileLookup({
      'mcpSwitchboard.tools.deny': ['a/*', 4],
      'mcpSwitchboard.tools.maxExposed': '12',
      'mcpSwitchboard.tools.cacheTtlDays': -3,
      'tools.disabled': ['not/read'],
    });
    assert.deepEqual(catalogSettingsFrom(lookup), {
      globalDeny: ['a/*'],
      disabled: [],
      maxExposed: 128,
      cacheTtlMs: 0,
      toolSet: undefined,
      unknownToolSet: undefined,
    });
  });

  it('resolves the tool set in use from a settings file, the CLI way (serve and doctor see the same tools)', () => {
    const lookup = settingsFileLookup({
      'mcpSwitchboard.toolSets': { review: { servers: ['github'], tools: ['fs/read_*'] } },
      'mcpSwitchboard.toolSet': 'review',
    });
    assert.deepEqual(catalogSettingsFrom(lookup).toolSet, { name: 'review', servers: ['github'], tools: ['fs/read_*'] });
    const unknown = settingsFileLookup({ 'mcpSwitchboard.toolSet': 'gone' });
    assert.deepEqual([catalogSettingsFrom(unknown).toolSet, catalogSettingsFrom(unknown).unknownToolSet], [undefined, 'gone']);
  });
});
