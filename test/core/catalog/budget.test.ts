import assert from 'node:assert/strict';
import { applyBudget, budgetWarning, DEFAULT_MAX_EXPOSED, normalizeMaxExposed } from '../../../src/core/catalog/budget';
import { buildSnapshot } from '../../../src/core/catalog/snapshot';
import { prepareToolList } from '../../../src/core/catalog/preparedList';
import { tools } from './helpers';

describe('catalog budget', () => {
  it('defaults to the editor limit of 128 and refuses unusable values', () => {
    assert.equal(DEFAULT_MAX_EXPOSED, 128);
    for (const value of [undefined, -1, 1.5, Number.NaN, '10', Infinity]) assert.equal(normalizeMaxExposed(value), 128, String(value));
    assert.equal(normalizeMaxExposed(0), 0);
    assert.equal(normalizeMaxExposed(500), 500);
  });

  it('keeps the first N in configuration order, then name, whatever the input order', () => {
    const items = [
      { serverIndex: 1, name: 'a' },
      { serverIndex: 0, name: 'zeta' },
      { serverIndex: 0, name: 'Beta' },
      { serverIndex: 2, name: 'a' },
      { serverIndex: 0, name: 'alpha' },
    ];
    const expected = ['0/Beta', '0/alpha', '0/zeta'];
    for (const order of [items, [...items].reverse(), [items[3], items[0], items[4], items[1], items[2]]]) {
      const { exposed, hidden } = applyBudget(
        order.filter((item) => item !== undefined),
        3,
      );
      assert.deepEqual(
        exposed.map((item) => `${item.serverIndex}/${item.name}`),
        expected,
      );
      assert.deepEqual(
        hidden.map((item) => `${item.serverIndex}/${item.name}`),
        ['1/a', '2/a'],
      );
    }
  });

  it('warns, naming the setting, only when over budget', () => {
    assert.equal(budgetWarning(128, 128), undefined);
    const warning = budgetWarning(130, 128);
    assert.equal(warning?.kind, 'budgetExceeded');
    assert.equal(warning?.setting, 'mcpSwitchboard.tools.maxExposed');
    assert.match(warning?.message ?? '', /130 tools passed the filters but only 128 .* 2 tools are hidden/);
  });

  it('cuts the snapshot at maxExposed with the budget rule, counting filtered tools out', () => {
    const servers = [
      { name: 'second-in-name-order', list: tools('c', 'a', 'b') },
      { name: 'alpha', list: tools('z', 'y') },
    ].map((server) => ({
      name: server.name,
      state: 'running' as const,
      fromCache: false,
      tools: prepareToolList(server.list),
      filters: { deny: ['b'] },
    }));
    const { snapshot } = buildSnapshot(servers, { globalDeny: [], disabled: [], maxExposed: 3 });
    const exposed = snapshot.servers.flatMap((server) =>
      server.tools.filter((item) => item.exposed).map((item) => `${server.name}/${item.name}`),
    );
    assert.deepEqual(exposed, ['second-in-name-order/a', 'second-in-name-order/c', 'alpha/y']);
    const cut = snapshot.servers[1]?.tools.find((item) => item.name === 'z');
    assert.deepEqual(cut?.filteredBy, { kind: 'budget', maxExposed: 3 });
    assert.equal(snapshot.eligible, 4);
    assert.equal(snapshot.maxExposed, 3);
    assert.deepEqual(
      snapshot.warnings.map((warning) => warning.kind),
      ['budgetExceeded'],
    );
  });

  it('cuts in budget order even for a list that is not sorted by name', () => {
    const sorted = prepareToolList(tools('a', 'b', 'c', 'd'));
    const unsorted = { ...sorted, tools: [...sorted.tools].reverse() };
    const build = (list: typeof sorted) =>
      buildSnapshot([{ name: 's', state: 'running', fromCache: false, tools: list }], { globalDeny: [], disabled: [], maxExposed: 2 })
        .snapshot;
    const exposed = (list: typeof sorted) =>
      build(list)
        .servers[0]?.tools.filter((item) => item.exposed)
        .map((item) => item.name);
    assert.deepEqual(exposed(sorted), ['a', 'b']);
    assert.deepEqual(exposed(unsorted)?.sort(), ['a', 'b']);
    assert.equal(build(unsorted).eligible, 4);
  });

  it('exposes nothing with a budget of 0', () => {
    const { snapshot } = buildSnapshot([{ name: 's', state: 'running', fromCache: false, tools: prepareToolList(tools('a')) }], {
      globalDeny: [],
      disabled: [],
      maxExposed: 0,
    });
    assert.equal(snapshot.servers[0]?.tools[0]?.exposed, false);
  });
});
