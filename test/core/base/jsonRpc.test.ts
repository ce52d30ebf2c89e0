// The hand-written JSON-RPC shape check accepts and refuses exactly what the SDK's schema does, on
// every combination of the parts a message may have, right or wrong.
import assert from 'node:assert/strict';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { isJsonRpcMessage } from '../../../src/core/base/jsonRpc';

const ABSENT = Symbol('absent');
const choices: Record<string, unknown[]> = {
  jsonrpc: ['2.0', '1.0', ABSENT],
  id: [1, 'a', 0, -3, 1.5, null, true, {}, ABSENT],
  method: ['tools/call', 3, ABSENT],
  params: [{ a: 1 }, {}, [], 'x', null, ABSENT],
  result: [{ content: [] }, {}, [], null, 'x', ABSENT],
  error: [
    { code: -32601, message: 'no' },
    { code: 1.5, message: 'x' },
    { code: 1, message: 2 },
    { code: 1, message: 'x', data: [1] },
    {},
    'x',
    ABSENT,
  ],
  extra: [1, ABSENT],
};

function* combinations(keys: string[], built: Record<string, unknown> = {}): Generator<Record<string, unknown>> {
  const [key, ...rest] = keys;
  if (key === undefined) return yield built;
  for (const value of choices[key] ?? []) yield* combinations(rest, value === ABSENT ? built : { ...built, [key]: value });
}

describe('base: the JSON-RPC message check', () => {
  it('agrees with the SDK schema on every combination of right and wrong parts', () => {
    let accepted = 0;
    let total = 0;
    for (const message of combinations(Object.keys(choices))) {
      total += 1;
      const expected = JSONRPCMessageSchema.safeParse(message).success;
      assert.equal(isJsonRpcMessage(message), expected, JSON.stringify(message));
      if (expected) accepted += 1;
    }
    // Both sides of the line are exercised, not only refusals.
    assert.ok(accepted > 20 && total - accepted > 1000, `${accepted} accepted of ${total}`);
    for (const value of [null, [], 'x', 3, [{ jsonrpc: '2.0', method: 'x' }]]) assert.equal(isJsonRpcMessage(value), false);
  });
});
