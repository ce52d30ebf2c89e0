import assert from 'node:assert/strict';
import { RefreshScheduler } from '../../../src/core/catalog/refreshScheduler';
import { deferred, FakeClock } from './helpers';

function createScheduler(clock: FakeClock) {
  const applied: string[] = [];
  const errors: string[] = [];
  const held: ReturnType<typeof deferred<string>>[] = [];
  let fetches = 0;
  let answer = 'v1';
  const scheduler = new RefreshScheduler<string>({
    delayMs: 300,
    clock,
    fetch: async () => {
      fetches += 1;
      const control = held.shift();
      return control ? control.promise : answer;
    },
    apply: (server, value) => applied.push(`${server}=${value}`),
    fingerprint: (value) => value,
    onError: (server, error) => errors.push(`${server}: ${String(error)}`),
  });
  return {
    scheduler,
    applied,
    errors,
    fetches: () => fetches,
    setAnswer: (value: string) => (answer = value),
    hold: () => {
      const control = deferred<string>();
      held.push(control);
      return control;
    },
  };
}

describe('catalog refresh scheduler', () => {
  it('turns a burst of signals into one fetch, 300 ms after the last one', async () => {
    const clock = new FakeClock();
    const { scheduler, applied, fetches } = createScheduler(clock);
    for (let i = 0; i < 5; i++) {
      scheduler.signal('s', `change-${i}`);
      clock.advance(100);
    }
    assert.equal(fetches(), 0);
    clock.advance(199);
    assert.equal(fetches(), 0, 'still inside the quiet period');
    clock.advance(1);
    assert.equal(fetches(), 1);
    await scheduler.idle();
    assert.deepEqual(applied, ['s=v1']);
    assert.equal(scheduler.counters.debounced, 1);
  });

  it('debounces each server on its own', async () => {
    const clock = new FakeClock();
    const { scheduler, fetches } = createScheduler(clock);
    scheduler.signal('a', 'x');
    clock.advance(200);
    scheduler.signal('b', 'x');
    clock.advance(100);
    assert.equal(fetches(), 1, 'a is due, b is not');
    clock.advance(199);
    assert.equal(fetches(), 1);
    clock.advance(1);
    assert.equal(fetches(), 2);
    await scheduler.idle();
  });

  it('drops a slow fetch that a newer one overtook', async () => {
    const clock = new FakeClock();
    const { scheduler, applied, hold, setAnswer } = createScheduler(clock);
    const slow = hold();
    const first = scheduler.refreshNow('s');
    setAnswer('newer');
    await scheduler.refreshNow('s');
    assert.deepEqual(applied, ['s=newer']);
    slow.resolve('older');
    await first;
    assert.deepEqual(applied, ['s=newer'], 'the stale answer did not overwrite the newer one');
    assert.equal(scheduler.counters.stale, 1);
  });

  it('drops running fetches when newer data arrives by other means, or the server is cancelled', async () => {
    const clock = new FakeClock();
    const { scheduler, applied, hold } = createScheduler(clock);
    const slow = hold();
    const running = scheduler.refreshNow('s');
    scheduler.supersede('s');
    slow.resolve('old');
    await running;
    scheduler.signal('s', 'x');
    scheduler.cancel('s');
    clock.advance(1000);
    await scheduler.idle();
    assert.deepEqual(applied, []);
    assert.equal(clock.pendingTimers, 0);
  });

  it('ignores the echo of its own fetch, but refreshes again for a different change during a fetch', async () => {
    const clock = new FakeClock();
    const { scheduler, fetches, hold } = createScheduler(clock);
    const echoed = hold();
    const run = scheduler.refreshNow('s');
    scheduler.signal('s', 'v2');
    echoed.resolve('v2');
    await run;
    clock.advance(1000);
    await scheduler.idle();
    assert.equal(fetches(), 1, 'the signal described exactly what the fetch returned');

    const other = hold();
    const second = scheduler.refreshNow('s');
    scheduler.signal('s', 'v4');
    other.resolve('v3');
    await second;
    assert.equal(clock.pendingTimers, 1, 'a refresh is scheduled for the change the fetch did not include');
    clock.advance(300);
    await scheduler.idle();
    assert.equal(fetches(), 3);
  });

  it('reports a failed fetch and keeps going', async () => {
    const clock = new FakeClock();
    const { scheduler, errors, hold, applied } = createScheduler(clock);
    hold().reject(new Error('gone'));
    await scheduler.refreshNow('s');
    assert.deepEqual(errors, ['s: Error: gone']);
    await scheduler.refreshNow('s');
    assert.deepEqual(applied, ['s=v1']);
  });
});
