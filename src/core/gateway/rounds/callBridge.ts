// What a 2025 upstream asks (elicitation, sampling, roots: requests of its own, mid-call) of a
// 2026-07-28 gateway client, which has no session to receive requests on: the request goes back
// to that client as an `input_required` round of its own request, and the upstream's call stays
// open ("parked") until the client retries with its answer. Only the kinds the client declared;
// the host answers the rest, as it does for a client that declared nothing.
//
// The parked call's id travels as the round's upstream state, sealed in the client's
// requestState like any other (clientRounds.ts), so a retry is bound to its request and spent
// once. Bounded: at most MAX_PARKED calls wait at once, and MAX_PARKED_PER_CLIENT of one client
// (clientKeyOf): a client over its share, or a full bridge, makes room by cancelling the oldest call
// of that client, or of the client that has the most waiting, never of a client within its share
// while another is over it. Each waits at most ROUND_TTL_SECONDS for its client to come back; an
// abandoned one is cancelled upstream.
import { randomUUID } from 'node:crypto';
import { ProtocolErrorCode, type InputRequiredResult } from '@modelcontextprotocol/server';
import type { Clock, TimerHandle } from '../../base/clock';
import { type CallerOptions, INPUT_METHOD, type ClientInputRound, type InputKind, askingRelay, type RelayRouter } from '../../connection';
import { rpcError } from '../exposure';
import { ROUND_TTL_SECONDS } from './clientRounds';

export const MAX_PARKED = 256;
export const MAX_PARKED_PER_CLIENT = 64;
/** Marks a round's state as a parked call's, not an upstream's own. */
const PARKED = 'switchboard-parked:';

interface Ask {
  readonly key: string;
  readonly request: { readonly method: string; readonly params: unknown };
  readonly answer: (response: unknown) => void;
  sent: boolean;
}

/** One call that waits for its client between rounds. */
class ParkedCall<T> {
  /** Given when the call is first parked: most calls never are (this runs for every call). */
  id = '';
  constructor(readonly client: string) {}
  readonly controller = new AbortController();
  private readonly asks = new Map<string, Ask>();
  private asked = 0;
  /** Requests waiting for the call's next step (a duplicate retry waits too, and is woken too). */
  private readonly waiting = new Set<() => void>();
  outcome: { value: T | ClientInputRound } | { error: unknown } | undefined;
  expiry: TimerHandle | undefined;

  ask(kind: InputKind, params: unknown): Promise<unknown> {
    this.asked += 1;
    const key = `${kind}-${this.asked}`;
    return new Promise((resolve) => {
      this.asks.set(key, { key, request: { method: INPUT_METHOD[kind], params }, answer: resolve, sent: false });
      this.wake();
    });
  }

  settle(outcome: { value: T | ClientInputRound } | { error: unknown }): void {
    this.outcome = outcome;
    this.wake();
  }

  private wake(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resume of waiting) resume();
  }

  /** Answers the asks the client answered; an ask left unanswered is asked again. */
  answer(responses: Readonly<Record<string, unknown>> | undefined): void {
    for (const ask of [...this.asks.values()]) {
      if (responses?.[ask.key] === undefined) {
        ask.sent = false;
        continue;
      }
      this.asks.delete(ask.key);
      ask.answer(responses[ask.key]);
    }
  }

  /** The call's outcome, or the asks not yet sent to the client, whichever comes first. */
  async next(signal: AbortSignal): Promise<{ value: T | ClientInputRound } | { error: unknown } | { asks: Ask[] }> {
    const fromRequest = () => this.controller.abort(signal.reason);
    signal.addEventListener('abort', fromRequest, { once: true });
    try {
      for (;;) {
        if (this.outcome) return this.outcome;
        const unsent = [...this.asks.values()].filter((ask) => !ask.sent);
        if (unsent.length > 0) {
          for (const ask of unsent) ask.sent = true;
          return { asks: unsent };
        }
        await new Promise<void>((resolve) => this.waiting.add(resolve));
      }
    } finally {
      signal.removeEventListener('abort', fromRequest);
    }
  }
}

export class CallBridge {
  private readonly parked = new Map<string, ParkedCall<unknown>>();

  constructor(
    /** Only puts a call's relay in place: the host answers what the client did not declare. */
    private readonly relays: Pick<RelayRouter, 'run'>,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `call` for a 2026-07-28 client's request (its options carry the client's rounds), or
   * resumes the call its retry names. `signal` is the request's: it ends the call only while this
   * request waits for it.
   */
  async run<T>(
    upstream: string,
    options: CallerOptions,
    signal: AbortSignal,
    call: (options: CallerOptions) => Promise<T | ClientInputRound>,
    client = '',
  ): Promise<T | ClientInputRound> {
    const rounds = options.rounds;
    const state = rounds?.requestState;
    let parked: ParkedCall<T>;
    if (state?.startsWith(PARKED)) {
      const found = this.parked.get(state.slice(PARKED.length)) as ParkedCall<T> | undefined;
      if (!found)
        throw rpcError(
          ProtocolErrorCode.InvalidParams,
          'The call this requestState belongs to is over (answered, cancelled, or left too long)',
        );
      parked = found;
      parked.answer(rounds?.inputResponses);
    } else {
      parked = this.start(upstream, options, rounds?.clientAnswers ?? new Set(), call, client);
    }
    this.clock.clearTimeout(parked.expiry);
    const next = await parked.next(signal);
    if ('asks' in next) return this.roundOf(parked, next.asks);
    this.parked.delete(parked.id);
    if ('error' in next) throw next.error;
    return next.value;
  }

  /** Room for one more call of `client`: from its own when it is at its share, else from the largest holder when full. */
  private makeRoom(client: string): void {
    const counts = new Map<string, number>();
    for (const waiting of this.parked.values()) counts.set(waiting.client, (counts.get(waiting.client) ?? 0) + 1);
    let from: string | undefined;
    if ((counts.get(client) ?? 0) >= MAX_PARKED_PER_CLIENT) from = client;
    else if (this.parked.size >= MAX_PARKED)
      for (const [holder, count] of counts) if (from === undefined || count > (counts.get(from) ?? 0)) from = holder;
    if (from === undefined) return;
    for (const waiting of this.parked.values()) {
      if (waiting.client !== from) continue;
      this.forget(
        waiting,
        from === client ? 'this client has too many calls waiting for its answers' : 'too many calls wait for their clients',
      );
      return;
    }
  }

  /** Every parked call is cancelled (the gateway stops). */
  dispose(): void {
    for (const parked of [...this.parked.values()]) this.forget(parked, 'the gateway stopped');
  }

  /** A parked call nobody will come back for: cancelled upstream. */
  private forget(parked: ParkedCall<unknown>, why: string): void {
    this.clock.clearTimeout(parked.expiry);
    this.parked.delete(parked.id);
    parked.controller.abort(new Error(why));
  }

  private start<T>(
    upstream: string,
    options: CallerOptions,
    declared: ReadonlySet<InputKind>,
    call: (options: CallerOptions) => Promise<T | ClientInputRound>,
    client: string,
  ): ParkedCall<T> {
    const parked = new ParkedCall<T>(client);
    const running = { ...options, signal: parked.controller.signal };
    const started = this.relays.run(
      upstream,
      askingRelay(declared, (kind, params) => parked.ask(kind, params)),
      call,
      running,
    );
    started.then(
      (value) => parked.settle({ value }),
      (error: unknown) => parked.settle({ error }),
    );
    return parked;
  }

  /** The round the client gets: the asks as input requests, the parked call's id as the state. */
  private roundOf<T>(parked: ParkedCall<T>, asks: Ask[]): ClientInputRound {
    if (parked.id === '') parked.id = randomUUID();
    if (!this.parked.has(parked.id)) this.makeRoom(parked.client);
    this.parked.set(parked.id, parked as ParkedCall<unknown>);
    parked.expiry = this.clock.setTimeout(
      () => this.forget(parked as ParkedCall<unknown>, 'the client did not come back with its answer in time'),
      ROUND_TTL_SECONDS * 1000,
    );
    const round: InputRequiredResult = {
      resultType: 'input_required',
      inputRequests: Object.fromEntries(asks.map((ask) => [ask.key, ask.request])) as InputRequiredResult['inputRequests'],
      requestState: `${PARKED}${parked.id}`,
    };
    return round as ClientInputRound;
  }
}
