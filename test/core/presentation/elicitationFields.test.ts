import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { elicitFields, MAX_FIELDS, parseFieldText, urlDomain, type ElicitField } from '../../../src/core/presentation/elicitationFields';

/** What the fixture's `ask_user` tool asks for. */
const ASK_USER_SCHEMA: unknown = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../fixtures/ask-user-schema.json'), 'utf8'));

function fieldsOf(schema: unknown): ElicitField[] {
  const parsed = elicitFields(schema);
  assert.ok('fields' in parsed, JSON.stringify(parsed));
  return parsed.fields;
}

describe('elicitation form fields', () => {
  it('reads the fixture form: string with a default, integer with bounds, boolean, enum; required kept', () => {
    const fields = fieldsOf(ASK_USER_SCHEMA);
    assert.deepEqual(
      fields.map((field) => [field.key, field.kind, field.required, field.default]),
      [
        ['name', 'string', true, 'Ada'],
        ['age', 'integer', false, undefined],
        ['subscribe', 'boolean', false, false],
        ['color', 'choice', false, undefined],
      ],
    );
    assert.deepEqual(
      fields[3]?.options?.map((option) => option.value),
      ['red', 'green', 'blue'],
    );
    assert.equal(fields[0]?.title, 'Name');
  });

  it('reads titled options (oneOf const/title, enumNames) and multi-select lists', () => {
    const fields = fieldsOf({
      type: 'object',
      properties: {
        size: {
          type: 'string',
          oneOf: [
            { const: 's', title: 'Small' },
            { const: 'l', title: 'Large' },
          ],
          default: 'l',
        },
        legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['Apple', 'Banana'] },
        toppings: { type: 'array', items: { type: 'string', enum: ['cheese', 'ham'] }, default: ['ham'], maxItems: 2 },
      },
    });
    assert.deepEqual(fields[0]?.options, [
      { value: 's', label: 'Small' },
      { value: 'l', label: 'Large' },
    ]);
    assert.equal(fields[0]?.default, 'l');
    assert.deepEqual(fields[1]?.options, [
      { value: 'a', label: 'Apple' },
      { value: 'b', label: 'Banana' },
    ]);
    assert.equal(fields[2]?.kind, 'choices');
    assert.deepEqual(fields[2]?.default, ['ham']);
    assert.equal(fields[2]?.maxItems, 2);
  });

  it('refuses forms it cannot show, saying why', () => {
    assert.deepEqual(elicitFields({ type: 'object' }), { problem: 'the requested schema has no properties' });
    assert.match(
      JSON.stringify(elicitFields({ type: 'object', properties: { deep: { type: 'object' } } })),
      /field \\"deep\\" has a type a form cannot ask for/,
    );
    const many = Object.fromEntries(Array.from({ length: MAX_FIELDS + 1 }, (_, i) => [`f${i}`, { type: 'string' }]));
    assert.match(JSON.stringify(elicitFields({ type: 'object', properties: many })), /at most 50 are shown/);
  });

  it('checks typed text against the field: numbers, bounds, lengths and formats', () => {
    const [age] = fieldsOf({ type: 'object', properties: { age: { type: 'integer', minimum: 0, maximum: 150 } } });
    assert.ok(age);
    assert.deepEqual(parseFieldText(age, '36'), { value: 36 });
    assert.deepEqual(parseFieldText(age, '3.5'), { problem: 'Enter a whole number' });
    assert.deepEqual(parseFieldText(age, '200'), { problem: 'At most 150' });
    assert.deepEqual(parseFieldText(age, 'x'), { problem: 'Enter a number' });
    const [email] = fieldsOf({ type: 'object', properties: { email: { type: 'string', format: 'email', maxLength: 20 } } });
    assert.ok(email);
    assert.deepEqual(parseFieldText(email, 'a@b.c'), { value: 'a@b.c' });
    assert.deepEqual(parseFieldText(email, 'nope'), { problem: 'Enter an email address' });
    assert.deepEqual(parseFieldText(email, `${'x'.repeat(20)}@b.c`), { problem: 'At most 20 characters' });
  });

  it('names the domain of a URL to open, and refuses anything but a web page', () => {
    assert.equal(urlDomain('https://login.example.com/path?x=1'), 'login.example.com');
    assert.equal(urlDomain('file:///etc/passwd'), undefined);
    assert.equal(urlDomain('javascript:alert(1)'), undefined);
    assert.equal(urlDomain('not a url'), undefined);
  });
});
