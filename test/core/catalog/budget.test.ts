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

  it('shares the budget fairly: a server that needs less leaves the rest to the others, none is cut to nothing', () => {
    const of = (serverIndex: number, count: number) =>
      Array.from({ length: count }, (_, index) => ({ serverIndex, name: `t${String(index).padStart(2, '0')}` }));
    const items = [...of(0, 10), ...of(1, 1), ...of(2, 5)];
    const count = (list: readonly { serverIndex: number }[]) =>
      [0, 1, 2].map((server) => list.filter((item) => item.serverIndex === server).length);
    for (const order of [items, [...items].reverse(), [...items.slice(7), ...items.slice(0, 7)]]) {
      const { exposed, hidden } = applyBudget(order, 8);
      // 1 for the server that needs 1; 7 left for two: 3 each, and the odd one to the first configured.
      assert.deepEqual(count(exposed), [4, 1, 3]);
      assert.deepEqual(count(hidden), [6, 0, 2]);
      assert.deepEqual(
        exposed.filter((item) => item.serverIndex === 0).map((item) => item.name),
        ['t00', 't01', 't02', 't03'],
        'name order within a server',
      );
    }
    assert.deepEqual(count(applyBudget(items, 3).exposed), [1, 1, 1], 'one each when the budget is that tight');
    assert.deepEqual(count(applyBudget(items, 2).exposed), [1, 1, 0], 'configuration order decides when it is tighter still');
    assert.deepEqual(count(applyBudget(items, 16).exposed), [10, 1, 5], 'everything when it fits');
    assert.deepEqual(count(applyBudget(items, 0).exposed), [0, 0, 0]);
  });

  it('20 servers over the editor limit (8 of 19 tools, 6 of 9, 6 of 14): each keeps 6 or 7, in configuration order', () => {
    const sizes = [...Array<number>(8).fill(19), ...Array<number>(6).fill(9), ...Array<number>(6).fill(14)];
    const items = sizes.flatMap((size, serverIndex) => Array.from({ length: size }, (_, index) => ({ serverIndex, name: `t${index}` })));
    const { exposed } = applyBudget(items, DEFAULT_MAX_EXPOSED);
    const shares = sizes.map((_, server) => exposed.filter((item) => item.serverIndex === server).length);
    assert.equal(exposed.length, 128);
    assert.deepEqual(shares, [...Array<number>(8).fill(7), ...Array<number>(12).fill(6)]);
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

  it('a server still coming up holds a share: each server already listed keeps, as the others arrive, the share it ends with', () => {
    // The bench's 20 servers: 8 of 17 tools, 6 of 9, 6 of 14, arriving one by one in a shuffled order.
    const sizes = [...Array<number>(8).fill(17), ...Array<number>(6).fill(9), ...Array<number>(6).fill(14)];
    const lists = sizes.map((size) =>
      prepareToolList(tools(...Array.from({ length: size }, (_, index) => `t${String(index).padStart(2, '0')}`))),
    );
    const arrival = [13, 2, 19, 7, 0, 16, 5, 11, 3, 18, 9, 1, 14, 6, 17, 10, 4, 12, 8, 15];
    for (const unsorted of [false, true]) {
      const shown = new Map<number, number>();
      let changedAfterListing = 0;
      arrival.forEach((_, step) => {
        const arrived = new Set(arrival.slice(0, step + 1));
        const servers = sizes.map((_, index) => {
          const list = lists[index] ?? assert.fail();
          return {
            name: `s${index}`,
            state: arrived.has(index) ? ('running' as const) : ('starting' as const),
            fromCache: false,
            ...(arrived.has(index) ? { tools: unsorted ? { ...list, tools: [...list.tools].reverse() } : list } : {}),
          };
        });
        const { snapshot } = buildSnapshot(servers, { globalDeny: [], disabled: [], maxExposed: DEFAULT_MAX_EXPOSED });
        assert.ok(snapshot.servers.reduce((sum, server) => sum + server.tools.filter((tool) => tool.exposed).length, 0) <= 128);
        for (const index of arrived) {
          const count = snapshot.servers[index]?.tools.filter((tool) => tool.exposed).length ?? 0;
          if (shown.has(index) && shown.get(index) !== count) changedAfterListing += 1;
          shown.set(index, count);
        }
      });
      assert.equal(changedAfterListing, 0, 'no listed server offered another count as the others came');
      assert.deepEqual(
        sizes.map((_, index) => shown.get(index)),
        [...Array<number>(8).fill(7), ...Array<number>(12).fill(6)],
      );
    }
  });

  it('a server still coming up takes nothing from servers whose tools all fit', () => {
    const servers = [
      { name: 'listed', state: 'running' as const, fromCache: false, tools: prepareToolList(tools('a', 'b', 'c')) },
      { name: 'coming', state: 'starting' as const, fromCache: false },
    ];
    const { snapshot } = buildSnapshot(servers, { globalDeny: [], disabled: [], maxExposed: 6 });
    assert.deepEqual(
      snapshot.servers[0]?.tools.filter((tool) => tool.exposed).map((tool) => tool.name),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(snapshot.warnings, []);
  });

  it('shares the snapshot fairly whether the lists come sorted by name or not', () => {
    const sorted = prepareToolList(tools('a', 'b', 'c', 'd', 'e'));
    const unsorted = { ...sorted, tools: [...sorted.tools].reverse() };
    for (const list of [sorted, unsorted]) {
      const servers = ['one', 'two', 'three'].map((name) => ({ name, state: 'running' as const, fromCache: false, tools: list }));
      const { snapshot } = buildSnapshot(servers, { globalDeny: [], disabled: [], maxExposed: 7 });
      assert.deepEqual(
        snapshot.servers.map((server) =>
          server.tools
            .filter((tool) => tool.exposed)
            .map((tool) => tool.name)
            .sort(),
        ),
        [
          ['a', 'b', 'c'],
          ['a', 'b'],
          ['a', 'b'],
        ],
      );
    }
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
