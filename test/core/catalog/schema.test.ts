import assert from 'node:assert/strict';
import { normalizeTool } from '../../../src/core/catalog/schema';
import { buildSnapshot } from '../../../src/core/catalog/snapshot';
import { prepareToolList } from '../../../src/core/catalog/preparedList';
import { deepFreeze } from './helpers';

const settings = { globalDeny: [], disabled: [], maxExposed: 128 };

describe('catalog schemas', () => {
  it('gives a tool without inputSchema an empty object schema', () => {
    const result = normalizeTool({ name: 'bare' });
    assert.ok(result.ok);
    assert.deepEqual(result.tool.inputSchema, { type: 'object', properties: {} });
  });

  it('passes schemas through as deep copies, leaving the input untouched', () => {
    const raw = deepFreeze({
      name: 'search',
      inputSchema: { type: 'object', properties: { q: { type: 'string', enum: ['a', 'b'] } }, required: ['q'] },
      outputSchema: { type: 'object', properties: { hits: { type: 'array' } } },
    });
    const result = normalizeTool(raw);
    assert.ok(result.ok);
    assert.deepEqual(result.tool, raw);
    assert.notEqual(result.tool.inputSchema, raw.inputSchema);
    assert.notEqual(result.tool.inputSchema.properties?.q, raw.inputSchema.properties.q);
    assert.notEqual(result.tool.outputSchema, raw.outputSchema);
    assert.ok(Object.isFrozen(result.tool.inputSchema.properties), 'the copy is frozen too');
  });

  it('with shareFrozen, shares a deeply frozen definition and still copies one that is not', () => {
    const frozen = deepFreeze({ name: 'f', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
    const shared = normalizeTool(frozen, { shareFrozen: true });
    assert.ok(shared.ok && shared.tool === frozen);
    const bare = deepFreeze({ name: 'bare', annotations: { readOnlyHint: true } });
    const added = normalizeTool(bare, { shareFrozen: true });
    assert.ok(added.ok && Object.isFrozen(added.tool) && Object.isFrozen(added.tool.inputSchema));
    assert.deepEqual(added.tool, { ...bare, inputSchema: { type: 'object', properties: {} } });
    assert.equal(added.tool.annotations, bare.annotations, 'the frozen parts are shared');
    const shallow = Object.freeze({ name: 's', inputSchema: { type: 'object', properties: {} } });
    const copied = normalizeTool(shallow, { shareFrozen: true });
    assert.ok(copied.ok && copied.tool !== shallow && copied.tool.inputSchema !== shallow.inputSchema);
    assert.ok(Object.isFrozen(copied.tool.inputSchema) && !Object.isFrozen(shallow.inputSchema), 'the input is left alone');
    const list = prepareToolList([frozen, shallow], undefined, { shareFrozen: true });
    assert.equal(list.tools[0]?.tool, frozen);
    assert.notEqual(list.tools[1]?.tool, shallow);
  });

  const MALFORMED: readonly [string, unknown, RegExp][] = [
    ['inputSchema is a string', { name: 't', inputSchema: 'object' }, /inputSchema must be an object, got string/],
    ['inputSchema is null', { name: 't', inputSchema: null }, /inputSchema must be an object, got null/],
    ['inputSchema is an array', { name: 't', inputSchema: [] }, /inputSchema must be an object, got an array/],
    ['inputSchema without type', { name: 't', inputSchema: { properties: {} } }, /inputSchema.type must be "object", got nothing/],
    [
      'inputSchema of another type',
      { name: 't', inputSchema: { type: 'string' } },
      /inputSchema.type must be "object", got string "string"/,
    ],
    ['properties is an array', { name: 't', inputSchema: { type: 'object', properties: [] } }, /inputSchema.properties must be an object/],
    [
      'a property is a number',
      { name: 't', inputSchema: { type: 'object', properties: { a: 1 } } },
      /inputSchema.properties.a must be a schema/,
    ],
    [
      'required is not a list of strings',
      { name: 't', inputSchema: { type: 'object', required: [1] } },
      /inputSchema.required must be an array of strings/,
    ],
    ['outputSchema of another type', { name: 't', outputSchema: { type: 'array' } }, /outputSchema.type must be "object"/],
    ['definition is not an object', 'tool', /must be an object, got string/],
    ['definition without name', { inputSchema: { type: 'object' } }, /has no name/],
  ];
  for (const [title, raw, reason] of MALFORMED) {
    it(`rejects a malformed tool: ${title}`, () => {
      const result = normalizeTool(raw);
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.problem, reason);
    });
  }

  it('accepts boolean property schemas', () => {
    assert.ok(normalizeTool({ name: 't', inputSchema: { type: 'object', properties: { anything: true } } }).ok);
  });

  it('excludes a malformed tool from the snapshot with a warning naming it; the rest are fine', () => {
    const list = prepareToolList([
      { name: 'good', inputSchema: { type: 'object' } },
      { name: 'broken', inputSchema: { type: 'string' } },
      { name: 'bare' },
    ]);
    const { snapshot } = buildSnapshot([{ name: 'srv', state: 'running', fromCache: false, tools: list }], settings);
    const byName = new Map(snapshot.servers[0]?.tools.map((tool) => [tool.name, tool]));
    assert.equal(byName.get('good')?.exposed, true);
    assert.equal(byName.get('bare')?.exposed, true);
    assert.deepEqual(byName.get('bare')?.tool.inputSchema, { type: 'object', properties: {} });
    const broken = byName.get('broken');
    assert.equal(broken?.exposed, false);
    assert.equal(broken?.filteredBy?.kind, 'malformedSchema');
    const warning = snapshot.warnings.find((item) => item.kind === 'malformedSchema');
    assert.equal(warning?.tool, 'broken');
    assert.equal(warning?.server, 'srv');
    assert.match(warning?.message ?? '', /"broken".*"srv".*inputSchema\.type/);
    assert.equal(snapshot.eligible, 2);
  });

  it('survives list entries that are not tools at all', () => {
    const list = prepareToolList([null, 42, 'x', { name: 7 }, { name: 'ok' }, { name: 'ok', description: 'again' }]);
    const { snapshot } = buildSnapshot([{ name: 'srv', state: 'running', fromCache: false, tools: list }], settings);
    assert.deepEqual(
      snapshot.servers[0]?.tools.map((tool) => tool.name),
      ['ok'],
    );
    assert.deepEqual(snapshot.warnings.map((warning) => warning.kind).sort(), ['duplicateTool', 'malformedSchema']);
  });
});
