// The reconcile plan as data: what a new configuration keeps, creates and stops.
import assert from 'node:assert/strict';
import { hashServerConnection } from '../../../src/core/config/hash';
import type { InvalidServer, StdioServerDefinition } from '../../../src/core/config/types';
import type { ServerBlock } from '../../../src/core/manager/managedServer';
import { planReconcile, type HeldServer } from '../../../src/core/manager/reconcilePlan';
import { stdioDefinition } from '../connection/helpers';

const server = (name: string, args: string[] = [], overrides: Partial<StdioServerDefinition> = {}): StdioServerDefinition =>
  stdioDefinition(args, { name, ...overrides });
const invalid = (name: string): InvalidServer => ({ name, source: { kind: 'user' }, diagnostics: [] });
const held = (configured: StdioServerDefinition | InvalidServer, blocked?: ServerBlock): HeldServer => ({
  configured,
  hash: 'transport' in configured ? hashServerConnection(configured) : undefined,
  hasConnection: 'transport' in configured,
  blocked,
});
const untrusted: ServerBlock = { reason: 'untrusted', detail: 'workspace not trusted' };

describe('planReconcile', () => {
  it('keeps an unchanged server, creates a new one, stops a removed one, in the new order', () => {
    const now = new Map([
      ['a', held(server('a'))],
      ['gone', held(server('gone'))],
    ]);
    const plan = planReconcile(now, [server('b'), server('a')], undefined);
    assert.deepEqual(
      plan.keep.map((kept) => [kept.name, kept.lifecycleChanged, kept.blockChange]),
      [['a', false, undefined]],
    );
    assert.deepEqual(
      plan.create.map((created) => [created.name, created.replaces]),
      [['b', false]],
    );
    assert.deepEqual(plan.stop, ['gone']);
    assert.deepEqual(plan.order, ['b', 'a']);
  });

  it('replaces a server whose connection changed, and one that was turned off or became invalid', () => {
    const now = new Map([
      ['args', held(server('args'))],
      ['off', held(server('off'))],
      ['bad', held(server('bad'))],
    ]);
    const plan = planReconcile(now, [server('args', ['--name', 'x']), server('off', [], { enabled: false }), invalid('bad')], undefined);
    assert.deepEqual(plan.keep, []);
    assert.deepEqual(
      plan.create.map((created) => [created.name, created.replaces, created.hash === undefined]),
      [
        ['args', true, false],
        ['off', true, false],
        ['bad', true, true],
      ],
    );
    assert.deepEqual(plan.stop, ['args', 'off', 'bad']);
  });

  it('applies a changed lifecycle in place, without a new connection', () => {
    const before = server('lazy');
    const after = server('lazy', [], { lifecycle: { start: 'lazy', idleStopMs: 60_000 } });
    const plan = planReconcile(new Map([['lazy', held(before)]]), [after], undefined);
    assert.deepEqual(
      plan.keep.map((kept) => [kept.name, kept.lifecycleChanged]),
      [['lazy', true]],
    );
    assert.deepEqual([plan.create, plan.stop], [[], []]);
  });

  it('changes blocks only when given the complete set, and keeps them otherwise', () => {
    const now = new Map([
      ['a', held(server('a'), untrusted)],
      ['b', held(server('b'))],
    ]);
    assert.deepEqual(
      planReconcile(now, [server('a'), server('b')], undefined).keep.map((kept) => kept.blockChange),
      [undefined, undefined],
    );
    const given = planReconcile(now, [server('a'), server('b')], new Map([['b', untrusted]]));
    assert.deepEqual(
      given.keep.map((kept) => [kept.name, kept.blockChange]),
      [
        ['a', { block: undefined }],
        ['b', { block: untrusted }],
      ],
    );
    const created = planReconcile(new Map(), [server('c')], new Map([['c', untrusted]]));
    assert.deepEqual(
      created.create.map((entry) => entry.block),
      [untrusted],
    );
  });

  it('takes a repeated name once', () => {
    const plan = planReconcile(new Map(), [server('a'), server('a', ['--other'])], undefined);
    assert.deepEqual(
      plan.create.map((created) => created.configured),
      [server('a')],
    );
    assert.deepEqual(plan.order, ['a']);
  });
});
