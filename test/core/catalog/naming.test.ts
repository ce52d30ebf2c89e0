import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { qualifyGroups, qualifyToolNames, sanitizeNamePart, type ToolRef } from '../../../src/core/catalog/naming';

/** The suffix the spec prescribes: 8 hex characters of SHA-256 of the original `server/tool`. */
function h(server: string, tool: string): string {
  return createHash('sha256').update(`${server}/${tool}`, 'utf8').digest('hex').slice(0, 8);
}

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

interface Case {
  readonly title: string;
  readonly refs: readonly (readonly [string, string])[];
  /** Expected name per ref, same order. */
  readonly names: readonly string[];
}

const x = (count: number, char = 'x') => char.repeat(count);

const CASES: readonly Case[] = [
  { title: 'plain ascii', refs: [['git', 'status']], names: ['git__status'] },
  { title: 'hyphens kept', refs: [['git', 'log-graph']], names: ['git__log-graph'] },
  { title: 'mixed case and digits kept', refs: [['a', 'UPPER_lower-09']], names: ['a__UPPER_lower-09'] },
  { title: 'space in server', refs: [['my server', 'run']], names: ['my_server__run'] },
  { title: 'dot in tool', refs: [['fs', 'read.file']], names: ['fs__read_file'] },
  { title: 'slash in tool', refs: [['fs', 'a/b']], names: ['fs__a_b'] },
  { title: 'dots and spaces everywhere', refs: [['my.server name', 'get item']], names: ['my_server_name__get_item'] },
  { title: 'accents stripped', refs: [['café', 'crème']], names: ['cafe__creme'] },
  { title: 'decomposed accent stripped', refs: [['e\u0301', 'x']], names: ['e__x'] },
  { title: 'ligature folded', refs: [['\ufb01le', 'x']], names: ['file__x'] },
  { title: 'fullwidth folded', refs: [['ＡＢＣ', 'x']], names: ['ABC__x'] },
  { title: 'math alphanumerics folded', refs: [['𝔘nicode', 'x']], names: ['Unicode__x'] },
  { title: 'CJK becomes one _ per character', refs: [['日本', 'ツール']], names: ['_______'] },
  { title: 'emoji (astral) becomes a single _', refs: [['bot', '🚀launch']], names: ['bot___launch'] },
  { title: 'zero-width joiner replaced', refs: [['a\u200db', 'c']], names: ['a_b__c'] },
  { title: 'control characters replaced', refs: [['a\tb', 'c\nd']], names: ['a_b__c_d'] },
  { title: 'empty tool', refs: [['srv', '']], names: ['srv__'] },
  { title: 'empty server', refs: [['', 'tool']], names: ['__tool'] },
  { title: 'both empty', refs: [['', '']], names: ['__'] },
  { title: 'only hyphens', refs: [['-', '-']], names: ['-__-'] },
  { title: 'dunder tool name', refs: [['srv', '__init__']], names: ['srv____init__'] },
  { title: 'exactly 64 characters is not truncated', refs: [[x(30, 'a'), x(32, 'b')]], names: [`${x(30, 'a')}__${x(32, 'b')}`] },
  {
    title: '65 characters: truncated, both parts keep room',
    refs: [[x(30, 'a'), x(33, 'b')]],
    names: [`${x(20, 'a')}__${x(33, 'b')}_${h(x(30, 'a'), x(33, 'b'))}`],
  },
  { title: 'very long tool', refs: [['git', x(200)]], names: [`git__${x(50)}_${h('git', x(200))}`] },
  { title: 'very long server', refs: [[x(100, 's'), 'run']], names: [`${x(50, 's')}__run_${h(x(100, 's'), 'run')}`] },
  { title: 'both very long', refs: [[x(100, 's'), x(100, 't')]], names: [`${x(20, 's')}__${x(33, 't')}_${h(x(100, 's'), x(100, 't'))}`] },
  { title: 'long after sanitizing unicode', refs: [[x(70, 'ü'), 'x']], names: [`${x(52, 'u')}__x_${h(x(70, 'ü'), 'x')}`] },
  {
    title: 'collision after sanitizing: the unchanged name keeps the plain form',
    refs: [
      ['fs', 'read.file'],
      ['fs', 'read_file'],
    ],
    names: [`fs__read_file_${h('fs', 'read.file')}`, 'fs__read_file'],
  },
  {
    title: 'collision across servers: space vs underscore',
    refs: [
      ['my server', 'x'],
      ['my_server', 'x'],
    ],
    names: [`my_server__x_${h('my server', 'x')}`, 'my_server__x'],
  },
  {
    title: 'collision of two changed names: first in code-unit order keeps the plain form',
    refs: [
      ['a.b', 't'],
      ['a b', 't'],
    ],
    names: [`a_b__t_${h('a.b', 't')}`, 'a_b__t'],
  },
  {
    title: 'collision of two unchanged names through the separator',
    refs: [
      ['a__b', 'c'],
      ['a', 'b__c'],
    ],
    names: [`a__b__c_${h('a__b', 'c')}`, 'a__b__c'],
  },
  {
    title: 'three-way collision',
    refs: [
      ['x', 'a.b'],
      ['x', 'a b'],
      ['x', 'a_b'],
    ],
    names: [`x__a_b_${h('x', 'a.b')}`, `x__a_b_${h('x', 'a b')}`, 'x__a_b'],
  },
  {
    title: 'names equal after truncation stay apart by hash',
    refs: [
      ['git', `${x(60)}1`],
      ['git', `${x(60)}2`],
    ],
    names: [`git__${x(50)}_${h('git', `${x(60)}1`)}`, `git__${x(50)}_${h('git', `${x(60)}2`)}`],
  },
  {
    title: 'empty and underscore do not collide',
    refs: [
      ['s', ''],
      ['s', '_'],
    ],
    names: ['s__', 's___'],
  },
  {
    title: 'space collides with underscore',
    refs: [
      ['s', ' '],
      ['s', '_'],
    ],
    names: [`s____${h('s', ' ')}`, 's___'],
  },
  {
    title: 'a collided name near the limit is truncated before the suffix',
    refs: [
      ['srv', `${x(50)}.y`],
      ['srv', `${x(50)}_y`],
    ],
    names: [`srv__${x(50)}_${h('srv', `${x(50)}.y`)}`, `srv__${x(50)}_y`],
  },
  {
    title: 'the same pair twice is one name',
    refs: [
      ['git', 'status'],
      ['git', 'status'],
    ],
    names: ['git__status', 'git__status'],
  },
];

describe('catalog naming', () => {
  describe('table', () => {
    for (const testCase of CASES) {
      it(testCase.title, () => {
        const names = qualifyToolNames(testCase.refs.map(([server, tool]) => ({ server, tool })));
        const actual = testCase.refs.map(([server, tool]) => names.get(server, tool));
        assert.deepEqual(actual, testCase.names);
        for (const name of actual) assert.match(name ?? '', VALID);
      });
    }
  });

  it('has at least 30 table cases', () => {
    assert.ok(CASES.length >= 30, `${CASES.length} cases`);
  });

  it('sanitizes a part on its own', () => {
    assert.equal(sanitizeNamePart('a.b c'), 'a_b_c');
    assert.equal(sanitizeNamePart('ok_name-1'), 'ok_name-1');
    assert.equal(sanitizeNamePart('👍🏽'), '__');
  });

  it('gives the same names whatever order the pairs arrive in', () => {
    const refs: ToolRef[] = [];
    for (const server of ['git', 'my server', 'my_server', 'fs', 'ünï', x(70, 's')]) {
      for (const name of ['read.file', 'read_file', 'read file', 'status', x(80), `${x(80)}2`, '']) refs.push({ server, tool: name });
    }
    const reference = qualifyToolNames(refs);
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 20; round++) {
      const shuffled = [...refs];
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [shuffled[i], shuffled[j]] = [shuffled[j] as ToolRef, shuffled[i] as ToolRef];
      }
      const names = qualifyToolNames(shuffled);
      for (const ref of refs)
        assert.equal(names.get(ref.server, ref.tool), reference.get(ref.server, ref.tool), `${ref.server}/${ref.tool}`);
    }
  });

  it("names grouped input (the snapshot builder's fast path) exactly as pairs, aligned with each group", () => {
    const servers = ['git', 'my server', 'my_server', 'fs', 'ünï', x(70, 's'), 'a.b', 'a_b'];
    const toolNames = ['read.file', 'read_file', 'read file', 'status', x(80), `${x(80)}2`, '', 'a', 'ä', '🚀'];
    const byPairs = qualifyToolNames(servers.flatMap((server) => toolNames.map((tool) => ({ server, tool }))));
    const groups = [...servers].reverse().map((server) => {
      const tools = [...toolNames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return { server, tools, safeTools: tools.map(sanitizeNamePart) };
    });
    const byGroups = qualifyGroups(groups);
    for (const group of groups) {
      const aligned = byGroups.forServer(group.server);
      group.tools.forEach((tool, index) => {
        assert.equal(byGroups.get(group.server, tool), byPairs.get(group.server, tool), `${group.server}/${tool}`);
        assert.equal(aligned?.[index], byPairs.get(group.server, tool), `${group.server}/${tool} by position`);
      });
    }
    assert.equal(byGroups.forServer('nope'), undefined);
  });

  it('yields valid, unique names for a large adversarial set', () => {
    const refs: ToolRef[] = [];
    const parts = ['a', 'a.', 'a ', 'a_', 'ä', 'a\u0308', '🚀', '', '_', '-', x(40), `${x(40)}.`, x(70)];
    for (const server of parts) for (const name of parts) refs.push({ server, tool: name });
    const names = qualifyToolNames(refs);
    const all = refs.map((ref) => names.get(ref.server, ref.tool) ?? '');
    for (const name of all) assert.match(name, VALID);
    assert.equal(new Set(all).size, refs.length, 'every pair has its own name');
  });

  it('does not rename an existing tool when a colliding server is added', () => {
    const before = qualifyToolNames([{ server: 'my_server', tool: 'x' }]);
    const after = qualifyToolNames([
      { server: 'my server', tool: 'x' },
      { server: 'my_server', tool: 'x' },
    ]);
    assert.equal(after.get('my_server', 'x'), before.get('my_server', 'x'));
    assert.notEqual(after.get('my server', 'x'), after.get('my_server', 'x'));
  });
});
