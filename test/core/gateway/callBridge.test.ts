// The gateway's parked calls (gateway/rounds/callBridge.ts), on a fake clock: a 2025 upstream's request
// during a 2026-07-28 client's call becomes that client's round; a retry resumes the same call; an
// ask left unanswered is asked again; an abandoned call is cancelled when its round expires; the
// number that wait at once is bounded. End to end with the reference server:
// tasks/gateway2026.test.ts.
import assert from 'node:assert/strict';
import { ProtocolError } from '@modelcontextprotocol/server';
import { CallBridge, MAX_PARKED, MAX_PARKED_PER_CLIENT } from '../../../src/core/gateway/rounds/callBridge';
import { ROUND_TTL_SECONDS } from '../../../src/core/gateway/rounds/clientRounds';
import type { ClientInputRound, InputKind } from '../../../src/core/connection/rounds/inputRounds';
import type { RelayRouter, Relay } from '../../../src/core/connection/rounds/relayRouter';
import type { CallerOptions } from '../../../src/core/connection/connectionOptions';
import { FakeClock } from '../support/fakeClock';

/** The host that runs a call with a relay in place; the call reaches it through `current`. */
class Host implements Pick<RelayRouter, 'run'> {
  current: Relay | undefined;
  run<A extends unknown[], T>(_server: string, relay: Relay | undefined, run: (...args: A) => Promise<T>, ...args: A): Promise<T> {
    this.current = relay;
    return run(...args);
  }
}

const declared = (...kinds: InputKind[]): CallerOptions => ({ rounds: { clientAnswers: new Set(kinds) } });
const never = new AbortController().signal;

/** A call that asks for a name (through the relay) and greets whoever answers; it sees its signal. */
function greeting(host: Host, seen: { signal?: AbortSignal }) {
  return async (options: CallerOptions): Promise<string> => {
    seen.signal = options.signal;
    const relay = host.current;
    const answer = (await relay?.elicit?.({
      mode: 'form',
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    })) as { content?: { name?: string } } | undefined;
    return `Hello ${answer?.content?.name ?? 'nobody'}`;
  };
}

function asRound(value: unknown): ClientInputRound {
  assert.equal((value as { resultType?: string }).resultType, 'input_required', JSON.stringify(value));
  return value as ClientInputRound;
}

describe('parked calls of 2026-07-28 clients (gateway/callBridge)', () => {
  it('asks the client in a round, and the retry with its answer finishes the same call', async () => {
    const host = new Host();
    const bridge = new CallBridge(host, new FakeClock());
    const seen: { signal?: AbortSignal } = {};
    const round = asRound(await bridge.run('up', declared('elicitation'), never, greeting(host, seen)));
    const [key, request] = Object.entries(round.inputRequests ?? {})[0] ?? [];
    assert.equal((request as { method?: string }).method, 'elicitation/create');
    const done = await bridge.run(
      'up',
      {
        rounds: {
          clientAnswers: new Set(['elicitation']),
          inputResponses: { [key ?? '']: { action: 'accept', content: { name: 'Ada' } } },
          requestState: round.requestState ?? '',
        },
      },
      never,
      greeting(host, {}),
    );
    assert.equal(done, 'Hello Ada');
  });

  it('a retry without the answer is asked again; a state of a call that is over is -32602', async () => {
    const host = new Host();
    const bridge = new CallBridge(host, new FakeClock());
    const round = asRound(await bridge.run('up', declared('elicitation'), never, greeting(host, {})));
    const state = round.requestState ?? '';
    const again = asRound(
      await bridge.run(
        'up',
        { rounds: { clientAnswers: new Set(['elicitation']), inputResponses: {}, requestState: state } },
        never,
        greeting(host, {}),
      ),
    );
    assert.deepEqual(Object.keys(again.inputRequests ?? {}), Object.keys(round.inputRequests ?? {}), 'the same ask, under its key');
    const [key] = Object.keys(again.inputRequests ?? {});
    await bridge.run(
      'up',
      {
        rounds: {
          clientAnswers: new Set(['elicitation']),
          inputResponses: { [key ?? '']: { action: 'decline' } },
          requestState: again.requestState ?? '',
        },
      },
      never,
      greeting(host, {}),
    );
    await assert.rejects(
      bridge.run('up', { rounds: { clientAnswers: new Set(['elicitation']), requestState: state } }, never, greeting(host, {})),
      (error: unknown) => error instanceof ProtocolError && error.code === -32602,
    );
  });

  it('a kind the client did not declare is not its to answer (the host answers it)', async () => {
    const host = new Host();
    const bridge = new CallBridge(host, new FakeClock());
    await bridge.run('up', declared('sampling'), never, async () => 'done');
    assert.equal(host.current?.elicit, undefined);
    assert.ok(host.current?.sample);
  });

  it('a call whose client never comes back is cancelled when its round expires', async () => {
    const host = new Host();
    const clock = new FakeClock();
    const bridge = new CallBridge(host, clock);
    const seen: { signal?: AbortSignal } = {};
    asRound(await bridge.run('up', declared('elicitation'), never, greeting(host, seen)));
    clock.advance(ROUND_TTL_SECONDS * 1000 - 1);
    assert.equal(seen.signal?.aborted, false);
    clock.advance(1);
    assert.equal(seen.signal?.aborted, true);
  });

  it(`parks at most ${MAX_PARKED} calls: when full, the oldest of the client with the most waiting makes room`, async () => {
    const host = new Host();
    const bridge = new CallBridge(host, new FakeClock());
    const signals: Array<{ signal?: AbortSignal }> = [];
    // Clients within their share fill the bridge; one more call cancels exactly one, the oldest.
    const clients = Math.ceil(MAX_PARKED / MAX_PARKED_PER_CLIENT);
    for (let index = 0; index <= MAX_PARKED; index += 1) {
      const seen: { signal?: AbortSignal } = {};
      signals.push(seen);
      asRound(await bridge.run('up', declared('elicitation'), never, greeting(host, seen), `client-${index % (clients + 1)}`));
    }
    assert.equal(signals.filter((seen) => seen.signal?.aborted).length, 1);
    assert.equal(signals[0]?.signal?.aborted, true, 'the first went');
  });

  it(`one client over its share (${MAX_PARKED_PER_CLIENT}) loses its own oldest calls, never another client's`, async () => {
    const host = new Host();
    const bridge = new CallBridge(host, new FakeClock());
    const polite: { signal?: AbortSignal } = {};
    const round = asRound(await bridge.run('up', declared('elicitation'), never, greeting(host, polite), 'polite@1'));
    const hog: Array<{ signal?: AbortSignal }> = [];
    for (let index = 0; index < 300; index += 1) {
      const seen: { signal?: AbortSignal } = {};
      hog.push(seen);
      asRound(await bridge.run('up', declared('elicitation'), never, greeting(host, seen), 'hog@1'));
    }
    assert.equal(polite.signal?.aborted, false, "the other client's call still waits");
    assert.equal(hog.filter((seen) => !seen.signal?.aborted).length, MAX_PARKED_PER_CLIENT, 'the hog keeps its share, its newest');
    assert.equal(hog.at(-1)?.signal?.aborted, false);
    const [key] = Object.keys(round.inputRequests ?? {});
    const done = await bridge.run(
      'up',
      {
        rounds: {
          clientAnswers: new Set(['elicitation']),
          inputResponses: { [key ?? '']: { action: 'accept', content: { name: 'Ada' } } },
          requestState: round.requestState ?? '',
        },
      },
      never,
      greeting(host, {}),
      'polite@1',
    );
    assert.equal(done, 'Hello Ada');
  });

  it("the request's own cancellation ends the call only while that request waits for it", async () => {
    const host = new Host();
    const bridge = new CallBridge(host, new FakeClock());
    const request = new AbortController();
    const seen: { signal?: AbortSignal } = {};
    asRound(await bridge.run('up', declared('elicitation'), request.signal, greeting(host, seen)));
    request.abort();
    assert.equal(seen.signal?.aborted, false, "the first request is answered: its end is not the call's");
  });
});
