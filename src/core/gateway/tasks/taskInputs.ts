// What a task asks its 2026-07-28 client (the tasks extension): keyed input requests that the
// client reads with tasks/get (`inputRequests`) and answers with tasks/update (`inputResponses`).
// A key is never used twice in one task; answers for keys not outstanding are ignored.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** More outstanding requests than any task asks at once; an upstream that asks more is refused. */
export const MAX_OUTSTANDING = 16;
/** More requests than one task asks in its life; an upstream that keeps asking is refused. */
export const MAX_ASKED = 1_000;

interface Outstanding {
  readonly request: Readonly<Record<string, unknown>>;
  resolve(response: unknown): void;
  reject(error: unknown): void;
}

export class TaskInputs {
  private readonly outstanding = new Map<string, Outstanding>();
  private readonly used = new Set<string>();

  constructor(private readonly changed: () => void) {}

  get size(): number {
    return this.outstanding.size;
  }

  /** The outstanding requests, by key, as tasks/get shows them. */
  requests(): Record<string, unknown> {
    return Object.fromEntries([...this.outstanding].map(([key, entry]) => [key, entry.request]));
  }

  /** Asks `request` under `preferred` (or a fresh key when it was used); resolves with the client's answer. */
  ask(preferred: string, request: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.outstanding.size >= MAX_OUTSTANDING || this.used.size >= MAX_ASKED) {
      return Promise.reject(
        new ProtocolError(
          ProtocolErrorCode.InternalError,
          `The task asks more than ${MAX_OUTSTANDING} things at once, or ${MAX_ASKED} in all`,
        ),
      );
    }
    const key = this.freshKey(preferred.slice(0, 100) || 'input');
    return new Promise((resolve, reject) => {
      const abort = () => {
        this.outstanding.delete(key);
        reject(signal.reason);
      };
      signal.addEventListener('abort', abort, { once: true });
      this.outstanding.set(key, {
        request,
        resolve: (value) => {
          signal.removeEventListener('abort', abort);
          resolve(value);
        },
        reject,
      });
      this.changed();
    });
  }

  /** Answers the outstanding keys among `responses`; the rest are ignored. */
  answer(responses: Readonly<Record<string, unknown>>): void {
    let answered = false;
    for (const [key, response] of Object.entries(responses)) {
      const entry = this.outstanding.get(key);
      if (!entry) continue;
      this.outstanding.delete(key);
      entry.resolve(response);
      answered = true;
    }
    if (answered) this.changed();
  }

  private freshKey(preferred: string): string {
    let key = preferred;
    for (let index = 2; this.used.has(key); index += 1) key = `${preferred}-${index}`;
    this.used.add(key);
    return key;
  }
}
