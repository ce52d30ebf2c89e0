// A sealed value opens only under its key, its purpose and the very context it was sealed with:
// moved to another key, another user or another use, it is nothing.
import assert from 'node:assert/strict';
import { Sealer } from '../../../src/core/base/sealer';

describe('sealer: AES-256-GCM bound to its context', () => {
  const key = Buffer.from('a-key-the-replicas-share-for-this-test-0123456789');
  const sealer = new Sealer(key, 'a purpose');

  it('opens what it sealed, with the same context only', () => {
    const sealed = sealer.seal('the tokens of alice', ['kept sign-in', 'key-1', 'alice', 'notes']);
    assert.equal(sealer.open(sealed, 4096, ['kept sign-in', 'key-1', 'alice', 'notes']), 'the tokens of alice');
    for (const context of [
      ['kept sign-in', 'key-2', 'alice', 'notes'],
      ['kept sign-in', 'key-1', 'bob', 'notes'],
      ['kept sign-in', 'key-1', 'alice', 'tickets'],
      ['finished task', 'key-1', 'alice', 'notes'],
      // The parts' boundaries count: ["a","bc"] is not ["ab","c"].
      ['kept sign-in', 'key-1a', 'lice', 'notes'],
      ['kept sign-in'],
    ] as const)
      assert.equal(sealer.open(sealed, 4096, context as unknown as [string, ...string[]]), undefined, context.join('|'));
  });

  it('opens nothing sealed under another key or purpose, changed by a byte, or over its bound', () => {
    const sealed = sealer.seal('x', ['a']);
    assert.equal(new Sealer(key, 'another purpose').open(sealed, 4096, ['a']), undefined);
    assert.equal(
      new Sealer(Buffer.from('another-key-of-another-gateway-0123456789-000'), 'a purpose').open(sealed, 4096, ['a']),
      undefined,
    );
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[14] = (bytes[14] ?? 0) ^ 1;
    assert.equal(sealer.open(bytes.toString('base64url'), 4096, ['a']), undefined);
    assert.equal(sealer.open(sealed, sealed.length - 1, ['a']), undefined);
  });
});
