// Run Tool's argument box: the skeleton from a tool's schema, and the check with the SDK's JSON
// Schema validator before anything is sent.
import assert from 'node:assert/strict';
import { deepFreeze } from '../../../src/core/base/freeze';
import {
  argumentFields,
  argumentSkeleton,
  checkArgumentsText,
  describeArguments,
  parseNumberField,
  placeholderOf,
  shortValue,
} from '../../../src/core/presentation/toolArgumentsForm';

const add = {
  inputSchema: {
    type: 'object' as const,
    properties: { a: { type: 'number' }, b: { type: 'number' }, note: { type: 'string' } },
    required: ['a', 'b'],
  },
};

describe('Run Tool arguments', () => {
  it('fills in the required arguments with placeholders of their types, defaults and enums', () => {
    assert.equal(argumentSkeleton(add), '{"a":0,"b":0}');
    const rich = {
      inputSchema: {
        type: 'object' as const,
        properties: {
          mode: { enum: ['fast', 'slow'] },
          n: { type: 'integer', default: 3 },
          tags: { type: 'array' },
          on: { type: 'boolean' },
        },
        required: ['mode', 'n', 'tags', 'on'],
      },
    };
    assert.deepEqual(JSON.parse(argumentSkeleton(rich)), { mode: 'fast', n: 3, tags: [], on: false });
    assert.equal(argumentSkeleton({ inputSchema: { type: 'object' as const } }), '{}');
  });

  it("shows an array's items: one of their shape, nested objects and arrays included", () => {
    // The memory server's create_entities, as it lists it.
    const createEntities = {
      inputSchema: {
        type: 'object' as const,
        properties: {
          entities: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                entityType: { type: 'string' },
                observations: { type: 'array', items: { type: 'string' } },
              },
              required: ['name', 'entityType', 'observations'],
            },
          },
        },
        required: ['entities'],
      },
    };
    assert.deepEqual(JSON.parse(argumentSkeleton(createEntities)), { entities: [{ name: '', entityType: '', observations: [] }] });
    assert.equal(describeArguments(createEntities), 'Arguments: entities (array of object, required)');
    // Bounded: a schema that nests without end gives a skeleton that stops.
    type Level = { type: string; items?: { type: string; properties: { next: Level }; required: string[] } };
    const level = (inner: Level): Level => ({ type: 'array', items: { type: 'object', properties: { next: inner }, required: ['next'] } });
    const deep = level(level(level(level({ type: 'string' }))));
    assert.deepEqual(JSON.parse(argumentSkeleton({ inputSchema: { type: 'object' as const, properties: { deep }, required: ['deep'] } })), {
      deep: [{ next: [{}] }],
    });
    // An array of strings or numbers starts empty: an item "" would be sent as meant.
    const tags = { type: 'array', items: { type: 'string' } };
    assert.deepEqual(JSON.parse(argumentSkeleton({ inputSchema: { type: 'object' as const, properties: { tags }, required: ['tags'] } })), {
      tags: [],
    });
  });

  it('lists every argument with its type, required ones marked', () => {
    assert.equal(describeArguments(add), 'Arguments: a (number, required), b (number, required), note (string)');
    assert.equal(describeArguments({ inputSchema: { type: 'object' as const } }), 'This tool takes no arguments.');
  });

  it('refuses what the schema refuses, says why, and accepts what fits', () => {
    assert.equal(checkArgumentsText(add, '{"a": 1}'), "Does not fit the tool's schema: b is required");
    assert.equal(checkArgumentsText(add, '{"a": 1, "b": "two"}'), "Does not fit the tool's schema: b must be a number, not a string");
    assert.match(checkArgumentsText(add, 'nope') ?? '', /^Not JSON/);
    assert.equal(checkArgumentsText(add, '[]'), 'Enter a JSON object.');
    assert.equal(checkArgumentsText(add, '{"a": 1, "b": 2}'), undefined);
    // The catalog's definitions are frozen: the validator must not need to write into them
    // (@cfworker/json-schema does, into what it compiles), or the check silently goes.
    const frozen = deepFreeze(structuredClone(add));
    assert.match(checkArgumentsText(frozen, '{"a": 1}') ?? '', /Does not fit the tool's schema: .*b/);
  });

  it("says what to fix in the arguments' names, not the validator's pointers and summaries", () => {
    const tool = {
      inputSchema: {
        type: 'object' as const,
        properties: {
          a: { type: 'number', minimum: 1 },
          mode: { enum: ['fast', 'slow'] },
          nested: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
          list: { type: 'array', items: { type: 'integer' } },
        },
        additionalProperties: false,
      },
    };
    const said = (text: string) => checkArgumentsText(tool, text)?.replace("Does not fit the tool's schema: ", '');
    assert.equal(said('{"a": 0}'), 'a: 0 is less than 1');
    assert.equal(said('{"mode": "medium"}'), 'mode must be one of ["fast","slow"]');
    assert.equal(said('{"nested": {}}'), 'nested.x is required');
    assert.equal(said('{"list": [1, "x"]}'), 'list[1] must be an integer, not a string');
    assert.equal(said('{"zz": 1}'), 'zz is not an argument of this tool');
  });
});

describe("Run Tool's form: the rows and the values it asks for", () => {
  it('lists required arguments first, each with how it is asked for; nested objects and arrays get their own', () => {
    const schema = {
      type: 'object',
      properties: {
        note: { type: 'string', description: 'Free text' },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        count: { type: 'integer' },
        on: { type: 'boolean' },
        where: { type: 'object', properties: { x: { type: 'number' } } },
        anything: { type: 'object' },
        entities: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        loose: {},
      },
      required: ['count', 'entities'],
    };
    const fields = argumentFields(schema);
    assert.deepEqual(
      fields.map((field) => [field.name, field.kind, field.required]),
      [
        ['count', 'integer', true],
        ['entities', 'array', true],
        ['note', 'string', false],
        ['mode', 'enum', false],
        ['on', 'boolean', false],
        ['where', 'object', false],
        ['anything', 'json', false],
        ['loose', 'json', false],
      ],
    );
    assert.equal(fields.find((field) => field.name === 'mode')?.typeLabel, 'one of fast, slow');
    assert.equal(fields.find((field) => field.name === 'entities')?.typeLabel, 'array of object');
    assert.equal(fields.find((field) => field.name === 'note')?.description, 'Free text');
    assert.deepEqual(placeholderOf({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }), { name: '' });
    assert.deepEqual(argumentFields({ type: 'object' }), []);
  });

  it('reads numbers as typed, refusing what is not one, and shows values in a few characters', () => {
    assert.deepEqual(parseNumberField(' 2.5 ', false), { value: 2.5 });
    assert.deepEqual(parseNumberField('2.5', true), { error: 'Enter a whole number.' });
    assert.deepEqual(parseNumberField('two', false), { error: 'Enter a number.' });
    assert.deepEqual(parseNumberField('', false), { error: 'Enter a number.' });
    assert.equal(shortValue(undefined), 'not set');
    assert.equal(shortValue({ a: 1 }), '{"a":1}');
    assert.equal(shortValue('x'.repeat(100)).length, 60);
  });
});
