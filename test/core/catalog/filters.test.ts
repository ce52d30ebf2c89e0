import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import type { ToolFilterSettings } from '../../../src/core/config/types';
import {
  compileGlob,
  compileGlobalFilters,
  describeFilterRule,
  evaluateFilters,
  FILTER_STEPS,
  filterContext,
  type FilterStep,
} from '../../../src/core/catalog/filters';
import { buildSnapshot, type SnapshotSettings } from '../../../src/core/catalog/snapshot';
import { prepareToolList } from '../../../src/core/catalog/preparedList';
import type { CatalogSnapshot, FilterRule } from '../../../src/core/catalog/types';
import { tool } from './helpers';

const NO_SETTINGS: SnapshotSettings = { globalDeny: [], disabled: [], maxExposed: 128 };

function build(
  servers: { name: string; tools: Tool[]; filters?: ToolFilterSettings }[],
  settings: Partial<SnapshotSettings> = {},
  steps?: readonly FilterStep[],
): CatalogSnapshot {
  return buildSnapshot(
    servers.map((server) => ({
      name: server.name,
      state: 'running',
      fromCache: false,
      tools: prepareToolList(server.tools),
      filters: server.filters,
    })),
    { ...NO_SETTINGS, ...settings },
    steps ? { steps } : {},
  ).snapshot;
}

/** `server/tool` → the rule that hid it, or 'exposed'. */
function outcome(snapshot: CatalogSnapshot): Record<string, FilterRule | 'exposed'> {
  const result: Record<string, FilterRule | 'exposed'> = {};
  for (const server of snapshot.servers)
    for (const item of server.tools) result[`${server.name}/${item.name}`] = item.filteredBy ?? 'exposed';
  return result;
}

const readOnly = (name: string) => tool(name, { annotations: { readOnlyHint: true } });

describe('catalog filters', () => {
  it('per-server deny hides matching tools and names the pattern', () => {
    const snapshot = build([{ name: 'git', tools: [tool('push'), tool('push_force'), tool('status')], filters: { deny: ['push*'] } }]);
    assert.deepEqual(outcome(snapshot), {
      'git/push': { kind: 'serverDeny', pattern: 'push*' },
      'git/push_force': { kind: 'serverDeny', pattern: 'push*' },
      'git/status': 'exposed',
    });
  });

  it('per-server allow keeps only matching tools', () => {
    const snapshot = build([{ name: 'git', tools: [tool('log'), tool('status'), tool('push')], filters: { allow: ['log', 'stat*'] } }]);
    assert.deepEqual(outcome(snapshot), { 'git/log': 'exposed', 'git/push': { kind: 'serverAllow' }, 'git/status': 'exposed' });
  });

  it('deny wins over allow for the same tool', () => {
    const snapshot = build([{ name: 'git', tools: [tool('push'), tool('pull')], filters: { allow: ['p*'], deny: ['push'] } }]);
    assert.deepEqual(outcome(snapshot), { 'git/pull': 'exposed', 'git/push': { kind: 'serverDeny', pattern: 'push' } });
  });

  it('matches dotted names and does not let * cross a /', () => {
    const snapshot = build(
      [
        { name: 'fs', tools: [tool('.hidden'), tool('a/b'), tool('read')] },
        { name: 'git', tools: [tool('delete_branch'), tool('status')] },
      ],
      { globalDeny: ['fs/*', '*/delete_*'] },
    );
    assert.deepEqual(outcome(snapshot), {
      'fs/.hidden': { kind: 'globalDeny', pattern: 'fs/*' },
      'fs/a/b': 'exposed',
      'fs/read': { kind: 'globalDeny', pattern: 'fs/*' },
      'git/delete_branch': { kind: 'globalDeny', pattern: '*/delete_*' },
      'git/status': 'exposed',
    });
    assert.deepEqual(outcome(build([{ name: 'fs', tools: [tool('a/b')] }], { globalDeny: ['fs/**'] }))['fs/a/b'], {
      kind: 'globalDeny',
      pattern: 'fs/**',
    });
  });

  it('the disabled setting hides exactly the listed server/tool entries', () => {
    const snapshot = build(
      [
        { name: 'a', tools: [tool('x'), tool('y')] },
        { name: 'b', tools: [tool('x')] },
      ],
      { disabled: ['a/x', 'b/nope', 'a/*'] },
    );
    assert.deepEqual(outcome(snapshot), { 'a/x': { kind: 'disabledSetting' }, 'a/y': 'exposed', 'b/x': 'exposed' });
  });

  it('readOnly keeps only tools with readOnlyHint', () => {
    const snapshot = build([
      {
        name: 'db',
        tools: [readOnly('query'), tool('drop'), tool('vague', { annotations: { readOnlyHint: false } })],
        filters: { readOnly: true },
      },
    ]);
    assert.deepEqual(outcome(snapshot), {
      'db/drop': { kind: 'readOnlyOnly' },
      'db/query': 'exposed',
      'db/vague': { kind: 'readOnlyOnly' },
    });
    assert.equal(snapshot.servers[0]?.tools.find((item) => item.name === 'query')?.readOnly, true);
  });

  it('applies the rules in order: the first failed rule is the reason', () => {
    const cases: [Partial<ToolFilterSettings>, Partial<SnapshotSettings>, FilterRule | 'exposed'][] = [
      [
        { deny: ['t'], readOnly: true },
        { globalDeny: ['s/t'], disabled: ['s/t'] },
        { kind: 'serverDeny', pattern: 't' },
      ],
      [{ allow: ['other'], readOnly: true }, { globalDeny: ['s/t'], disabled: ['s/t'] }, { kind: 'serverAllow' }],
      [{ readOnly: true }, { globalDeny: ['s/t'], disabled: ['s/t'] }, { kind: 'globalDeny', pattern: 's/t' }],
      [{ readOnly: true }, { disabled: ['s/t'] }, { kind: 'disabledSetting' }],
      [{ readOnly: true }, {}, { kind: 'readOnlyOnly' }],
      [{}, {}, 'exposed'],
    ];
    for (const [filters, settings, expected] of cases) {
      const snapshot = build([{ name: 's', tools: [tool('t')], filters: { allow: ['t'], ...filters } }], settings);
      assert.deepEqual(outcome(snapshot)['s/t'], expected, JSON.stringify([filters, settings]));
    }
  });

  it('the schema check comes after the filters: a denied broken tool does not warn', () => {
    const broken = { name: 'broken', inputSchema: { type: 'string' } } as unknown as Tool;
    const denied = build([{ name: 's', tools: [broken], filters: { deny: ['broken'] } }]);
    assert.deepEqual(outcome(denied)['s/broken'], { kind: 'serverDeny', pattern: 'broken' });
    assert.equal(denied.warnings.length, 0);
    const shown = build([{ name: 's', tools: [broken] }]);
    assert.equal((outcome(shown)['s/broken'] as FilterRule).kind, 'malformedSchema');
  });

  it('an allow pattern that matches nothing is a warning, not an error', () => {
    const snapshot = build([{ name: 'git', tools: [tool('log'), tool('status')], filters: { allow: ['log', 'stauts'] } }]);
    assert.equal(outcome(snapshot)['git/log'], 'exposed');
    assert.deepEqual(
      snapshot.warnings.map((warning) => [warning.kind, warning.server, warning.setting]),
      [['allowUnmatched', 'git', 'mcpSwitchboard.servers']],
    );
    assert.match(snapshot.warnings[0]?.message ?? '', /"stauts".*"git"/);
  });

  it('a filter step that throws excludes the tool with the reason, and the others still run', () => {
    const exploding: FilterStep = {
      name: 'exploding',
      apply(subject) {
        if (subject.name === 'bad') throw new Error('boom');
        return undefined;
      },
    };
    const snapshot = build([{ name: 's', tools: [tool('bad'), tool('good')] }], {}, [exploding, ...FILTER_STEPS]);
    assert.deepEqual(outcome(snapshot), { 's/bad': { kind: 'filterError', reason: 'exploding: boom' }, 's/good': 'exposed' });
    assert.equal(snapshot.warnings[0]?.kind, 'filterError');
    assert.match(snapshot.warnings[0]?.message ?? '', /1 tool\(s\) of server "s".*exploding: boom/);
  });

  it('an unusable pattern in a setting fails closed: its tools are hidden with a filterError', () => {
    const snapshot = build([{ name: 's', tools: [tool('a'), tool('b')] }], { globalDeny: [''] });
    for (const rule of Object.values(outcome(snapshot))) {
      assert.ok(rule !== 'exposed' && rule.kind === 'filterError');
      assert.match(rule.reason, /^mcpSwitchboard\.tools\.deny: pattern "" is not usable/);
    }
    assert.deepEqual(
      snapshot.warnings.map((warning) => [warning.kind, warning.setting]),
      [['filterError', 'mcpSwitchboard.tools.deny']],
    );
  });

  it('a non-string pattern from a hand-edited setting fails closed too', () => {
    const context = filterContext('s', { deny: [42 as unknown as string] }, compileGlobalFilters({ globalDeny: [], disabled: [] }));
    const rule = evaluateFilters({ server: 's', name: 't', readOnly: false }, context);
    assert.equal(rule?.kind, 'filterError');
  });

  it('a qualified name handed in (as the snapshot does) gives exactly what the steps give without it', () => {
    const global = compileGlobalFilters({ globalDeny: ['*/delete_*', 's/**', '**/admin_*', 'x/a.b'], disabled: ['t/get_a', 't/a.b'] });
    const broken = compileGlobalFilters({ globalDeny: [''], disabled: [] });
    const contexts = [
      filterContext('s', {}, global),
      filterContext('t', { deny: ['update_*', 'a.*'], allow: ['get_*', 'a.b', 'update_x'] }, global),
      filterContext('t', { readOnly: true }, global),
      filterContext('x', { deny: [42 as unknown as string] }, global),
      filterContext('x', { allow: [''] }, global),
      filterContext('x', {}, broken),
    ];
    const names = ['get_a', 'update_x', 'delete_me', 'admin_panel', 'a.b', '.hidden', 'x/y', '', 'list'];
    const oneByOne = [...FILTER_STEPS];
    for (const context of contexts) {
      for (const name of names) {
        for (const readOnly of [true, false]) {
          const expected = evaluateFilters({ server: context.server, name, readOnly }, context, oneByOne);
          assert.deepEqual(
            evaluateFilters({ server: context.server, name, readOnly, qualified: `${context.server}/${name}` }, context),
            expected,
            `${context.server}/${name} ${readOnly}`,
          );
          assert.deepEqual(evaluateFilters({ server: context.server, name, readOnly }, context), expected);
        }
      }
    }
  });

  it('compiled globs match as picomatch does', () => {
    const cases: [string, string, boolean][] = [
      ['get_*', 'get_a', true],
      ['get_*', 'x/get_a', false],
      ['*/delete_*', 'srv/delete_x', true],
      ['**/admin_*', 'a/b/admin_x', true],
      ['**/admin_*', 'admin_x', true],
      ['*', '.dotted', true],
      ['a.b', 'a.b', true],
      ['a.b', 'axb', false],
      ['[', '[', true],
      ['x', '', false],
    ];
    for (const [pattern, name, expected] of cases) assert.equal(compileGlob(pattern).test(name), expected, `${pattern} ~ ${name}`);
  });

  it('a built snapshot is frozen throughout: servers, tools, rules and warnings', () => {
    const { snapshot } = buildSnapshot(
      [
        {
          name: 's',
          state: 'running',
          fromCache: false,
          tools: prepareToolList([tool('a'), tool('b'), tool('c'), tool('d.e')]),
          filters: { deny: ['a'], allow: ['a', 'b', 'c', 'zz'] },
        },
      ],
      { globalDeny: ['s/c'], disabled: [], maxExposed: 0 },
    );
    assert.ok(Object.isFrozen(snapshot) && Object.isFrozen(snapshot.servers) && Object.isFrozen(snapshot.warnings));
    for (const warning of snapshot.warnings) assert.ok(Object.isFrozen(warning));
    for (const server of snapshot.servers) {
      assert.ok(Object.isFrozen(server) && Object.isFrozen(server.tools));
      for (const item of server.tools) {
        assert.ok(Object.isFrozen(item) && Object.isFrozen(item.tool) && Object.isFrozen(item.tool.inputSchema), item.name);
        assert.ok(item.filteredBy && Object.isFrozen(item.filteredBy), item.name);
      }
    }
    assert.deepEqual(
      snapshot.servers[0]?.tools.map((item) => item.filteredBy?.kind),
      ['serverDeny', 'budget', 'globalDeny', 'serverAllow'],
    );
  });

  it('filters work on the prepared list without changing it', () => {
    const list = prepareToolList([tool('a'), tool('b')]);
    const before = JSON.stringify(list);
    buildSnapshot([{ name: 's', state: 'running', fromCache: false, tools: list, filters: { deny: ['a'], readOnly: true } }], {
      ...NO_SETTINGS,
      disabled: ['s/b'],
    });
    assert.equal(JSON.stringify(list), before);
    assert.ok(Object.isFrozen(list.tools[0]?.tool));
  });

  it('describes every rule in words that name it', () => {
    const rules: [FilterRule, RegExp][] = [
      [{ kind: 'serverDeny', pattern: 'p*' }, /tools\.deny pattern "p\*" of server "s"/],
      [{ kind: 'serverAllow' }, /tools\.allow list of server "s"/],
      [{ kind: 'globalDeny', pattern: 's/*' }, /mcpSwitchboard\.tools\.deny pattern "s\/\*"/],
      [{ kind: 'disabledSetting' }, /mcpSwitchboard\.tools\.disabled/],
      [{ kind: 'readOnlyOnly' }, /tools\.readOnly/],
      [{ kind: 'malformedSchema', reason: 'bad' }, /malformed: bad/],
      [{ kind: 'filterError', reason: 'oops' }, /filter failed: oops/],
      [{ kind: 'budget', maxExposed: 3 }, /maxExposed \(3\)/],
    ];
    for (const [rule, expected] of rules) assert.match(describeFilterRule(rule, 's'), expected);
  });
});
