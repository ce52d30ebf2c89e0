import assert from 'node:assert/strict';
import type { ServerStateChangeEvent, ServerStateKind } from '../../../src/core/state/serverState';
import { Emitter } from '../../../src/core/base/events';
import { waitForState, type ServerView } from '../../../src/core/manager';
import { FakeClock } from '../support/fakeClock';

/** A state source whose one server's kind the test sets. */
function source(initial: ServerStateKind) {
  const emitter = new Emitter<ServerStateChangeEvent>();
  let kind = initial;
  const view = () => ({ name: 's', state: { kind } }) as unknown as ServerView;
  return {
    servers: () => [view()],
    onDidChangeState: emitter.event,
    set(next: ServerStateKind) {
      const previous = view().state;
      kind = next;
      emitter.fire({ server: 's', state: view().state, previous, at: 0 });
    },
  };
}

const running = (servers: readonly ServerView[]) => servers.every((server) => server.state.kind === 'running');

describe('waitForState', () => {
  it('is met at once when the condition already holds', async () => {
    assert.equal(await waitForState(source('running'), running, { clock: new FakeClock(), timeoutMs: 10 }), 'met');
  });

  it('is met by a state change, and stops listening and timing', async () => {
    const clock = new FakeClock();
    const servers = source('starting');
    const waiting = waitForState(servers, running, { clock, timeoutMs: 1_000 });
    servers.set('reconnecting');
    assert.equal(clock.pending().length, 1, 'still waiting, one timer');
    servers.set('running');
    assert.equal(await waiting, 'met');
    assert.equal(clock.pending().length, 0, 'the timer is cleared');
  });

  it('is met by a change of which servers there are (a removed server fires no state event)', async () => {
    const clock = new FakeClock();
    const servers = source('starting');
    const list = new Emitter<void>();
    let removed = false;
    const withList = { ...servers, servers: () => (removed ? [] : servers.servers()), onDidChangeServers: list.event };
    const waiting = waitForState(withList, (views) => views.length === 0, { clock, timeoutMs: 1_000 });
    removed = true;
    list.fire();
    assert.equal(await waiting, 'met');
    assert.equal(clock.pending().length, 0, 'the timer is cleared');
  });

  it('times out on the clock', async () => {
    const clock = new FakeClock();
    const waiting = waitForState(source('starting'), running, { clock, timeoutMs: 500 });
    clock.advance(499);
    clock.advance(1);
    assert.equal(await waiting, 'timeout');
  });

  it('ends on abort, before or while waiting', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const waiting = waitForState(source('starting'), running, { clock, timeoutMs: 500, signal: controller.signal });
    controller.abort();
    assert.equal(await waiting, 'aborted');
    assert.equal(clock.pending().length, 0);
    assert.equal(await waitForState(source('starting'), running, { clock, timeoutMs: 500, signal: controller.signal }), 'aborted');
  });
});
