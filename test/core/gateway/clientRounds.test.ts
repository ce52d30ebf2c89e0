// The gateway's requestState for 2026-07-28 clients, on a fake clock: a state is spent when its
// retry is accepted (so a retry that then fails, times out or is cut off cannot be replayed, and the
// upstream acts once), and stays refused for as long as it could be valid, even after the memory of
// spent states has filled and forgotten it.
import assert from 'node:assert/strict';
import type { ServerContext } from '@modelcontextprotocol/server';
import { GatewayRounds, MAX_SPENT_ROUNDS, ROUND_TTL_SECONDS } from '../../../src/core/gateway/rounds/clientRounds';

const CLIENT = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

/** A request of a 2026-07-28 client carrying `state` (already verified, as the SDK hands it over). */
function request(state?: unknown): ServerContext {
  return {
    mcpReq: {
      envelope: { ...CLIENT },
      inputResponses: state === undefined ? undefined : { confirm: { action: 'accept' } },
      requestState: () => state,
    },
  } as unknown as ServerContext;
}

function setup() {
  const clock = { now: 1_000_000 };
  const rounds = new GatewayRounds(
    () => new Set(),
    () => clock.now,
  );
  /** A round for `target`, as the client receives it, decoded as the SDK's verify would. */
  const mint = async (target = 'pay'): Promise<unknown> => {
    const open = rounds.open(request(), 'ep', 'tools/call', target);
    assert.ok(open);
    const reply = (await open.reply({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create', params: {} } },
      requestState: 'upstream-state',
    })) as { requestState: string };
    return rounds.verify(reply.requestState, request());
  };
  const retry = (state: unknown, target = 'pay') => rounds.open(request(state), 'ep', 'tools/call', target);
  return { clock, rounds, mint, retry };
}

function refusedWith(action: () => unknown, message: RegExp): void {
  assert.throws(action, (error: { code?: number; message?: string }) => error.code === -32602 && message.test(error.message ?? ''));
}

describe('gateway rounds: spending requestState', () => {
  it('a retry is spent when accepted: one whose upstream call then failed or was cut off cannot be sent again', async () => {
    const { mint, retry } = setup();
    const state = await mint();
    const accepted = retry(state);
    assert.equal(accepted?.options.rounds?.requestState, 'upstream-state');
    // Its reply never comes (the upstream failed, the deadline passed, the client hung up).
    refusedWith(() => retry(state), /already used/);
  });

  it('stays refused after more than MAX_SPENT_ROUNDS other rounds, within its lifetime', async () => {
    const { clock, mint, retry } = setup();
    const old = await mint();
    retry(old);
    for (let index = 0; index < MAX_SPENT_ROUNDS + 50; index++) {
      clock.now += 1;
      retry(await mint());
    }
    refusedWith(() => retry(old), /already used|too old/);
  });

  it('a state minted before the forgotten ones but never used is refused too, with a message that says to start again', async () => {
    const { clock, mint, retry } = setup();
    const unused = await mint();
    for (let index = 0; index < MAX_SPENT_ROUNDS + 1; index++) {
      clock.now += 1;
      retry(await mint());
    }
    refusedWith(() => retry(unused), /too old.*send the request again without it/);
    // A fresh one still works.
    assert.ok(retry(await mint()));
  });

  it('spent states are forgotten once expired, and a state for another request is refused without spending it', async () => {
    const { clock, mint, retry } = setup();
    const state = await mint();
    refusedWith(() => retry(state, 'other-tool'), /another request/);
    assert.ok(retry(state), 'the refusal above did not spend it');
    clock.now += ROUND_TTL_SECONDS * 1000 + 1;
    // Expired states never reach here (the codec refuses them); the memory of them is let go.
    assert.ok(retry(await mint()));
  });
});
