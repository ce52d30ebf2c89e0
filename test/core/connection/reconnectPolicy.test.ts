// When to try again, as data.
import assert from 'node:assert/strict';
import { DEFAULT_SLOW_RETRY_MS, decideRetry } from '../../../src/core/connection/reconnectPolicy';

const settings = { maxAttempts: 3, initialDelayMs: 500, maxDelayMs: 30_000 };
const half = () => 0.5;

describe('decideRetry', () => {
  it('retries with doubling delays until the breaker opens', () => {
    const delays = [0, 1, 2].map((failures) =>
      decideRetry({ failures, settings, lastError: 'gone', transientRemote: false, random: half }),
    );
    assert.deepEqual(delays, [
      { kind: 'retry', attempt: 1, maxAttempts: 3, delayMs: 375 },
      { kind: 'retry', attempt: 2, maxAttempts: 3, delayMs: 750 },
      { kind: 'retry', attempt: 3, maxAttempts: 3, delayMs: 1500 },
    ]);
  });

  it('gives up after maxAttempts, saying how many, with no retry for a local failure', () => {
    assert.deepEqual(decideRetry({ failures: 3, settings, lastError: 'exited with code 1', transientRemote: false }), {
      kind: 'giveUp',
      message: 'gave up after 3 reconnect attempts: exited with code 1',
    });
    assert.deepEqual(decideRetry({ failures: 1, settings: { ...settings, maxAttempts: 1 }, lastError: 'x', transientRemote: false }), {
      kind: 'giveUp',
      message: 'gave up after 1 reconnect attempt: x',
    });
  });

  it('keeps a slow retry for a remote failure that waiting may heal', () => {
    assert.deepEqual(decideRetry({ failures: 3, settings, lastError: 'HTTP 503', transientRemote: true }), {
      kind: 'giveUp',
      message: 'gave up after 3 reconnect attempts: HTTP 503',
      slowRetry: { attempt: 4, delayMs: DEFAULT_SLOW_RETRY_MS },
    });
    assert.deepEqual(
      decideRetry({
        failures: 0,
        settings: { ...settings, maxAttempts: 0 },
        lastError: 'refused',
        transientRemote: true,
        slowRetryMs: 1_000,
      }),
      {
        kind: 'giveUp',
        message: 'refused',
        slowRetry: { attempt: 1, delayMs: 1_000 },
      },
    );
  });
});
