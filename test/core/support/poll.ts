// Polling, for conditions that have no event to wait for (another process writing a file or
// exiting, bytes on a pipe, the editor's tool list, the DOM of a frame). Always bounded: a condition
// that never comes fails the test with what was awaited. What has an event uses waitFor.ts.

export async function until(condition: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Polls `probe` until it returns something other than undefined. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string | (() => string),
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(
    `${typeof what === 'string' ? what : what()} not reached within ${timeoutMs} ms${last === undefined ? '' : `; last error: ${String(last)}`}`,
  );
}
