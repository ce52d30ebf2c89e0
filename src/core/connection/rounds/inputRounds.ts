// 2026-07-28 multi-round-trip requests made for a gateway client that answers its own input
// requests (SEP-2322). The upstream's `input_required` result goes back to that client, which
// retries with its `inputResponses`; what the client did not declare it can answer, the host
// answers (the editor's dialogs) and carries into the client's retry. Without rounds, the SDK's
// driver answers every round through the host (clientLink.ts, `autoFulfill`).
import { isInputRequiredResult, type InputRequiredResult } from '@modelcontextprotocol/client';
import { CreateMessageRequestParamsSchema, ElicitRequestParamsSchema } from '@modelcontextprotocol/core';
import { type ProtocolEra, type ServerRequestHandlers, SwitchboardError } from '../link';

export type InputKind = 'elicitation' | 'sampling' | 'roots';

/** The request a server makes for each kind of input it asks. */
export const INPUT_METHOD: Readonly<Record<InputKind, string>> = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
};
const KIND_OF: Readonly<Record<string, InputKind>> = Object.fromEntries(
  Object.entries(INPUT_METHOD).map(([kind, method]) => [method, kind as InputKind]),
);

/** What a client's request carries for its upstream's rounds. */
export interface ClientRounds {
  /** What the client answers itself; the host answers the rest, or refuses. */
  readonly clientAnswers: ReadonlySet<InputKind>;
  /** The retry's answers: the client's, with what the host answered in the round before. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** The upstream's own state from the round before, as it gave it. */
  readonly requestState?: string;
}

/** Whether a client declared the tasks extension itself (CallerOptions.clientTasks says what follows). */
export interface ClientTasks {
  readonly declared: boolean;
  /** The server made a task of the call: the connection follows it from now on. */
  readonly onUpstreamTask?: () => void;
}

/** A round for the client to answer, with what the host answered of the same round. */
export interface ClientInputRound extends InputRequiredResult {
  readonly answeredByHost?: Readonly<Record<string, unknown>>;
}

/** What a request carries for the gateway client it is made for (CallerOptions has both). */
export interface UpstreamExtras {
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly rounds?: ClientRounds;
}

/** The W3C trace context keys of `_meta` (the SDK's TRACEPARENT_META_KEY and TRACESTATE_META_KEY). */
const TRACE_KEYS = ['traceparent', 'tracestate'] as const;

/**
 * What a 2026-07-28 upstream gets besides the request; a 2025 one has no `_meta` envelope or
 * rounds, but gets the trace context (`_meta` is open to any key in every revision).
 */
export function extrasFor(
  era: ProtocolEra,
  upstream: UpstreamExtras,
): { meta?: { _meta: Readonly<Record<string, unknown>> }; rounds?: ClientRounds } {
  if (era !== 'modern') {
    const trace = Object.fromEntries(
      TRACE_KEYS.flatMap((key) => (typeof upstream.meta?.[key] === 'string' ? [[key, upstream.meta[key]]] : [])),
    );
    return Object.keys(trace).length > 0 ? { meta: { _meta: trace } } : {};
  }
  return { ...(upstream.meta ? { meta: { _meta: upstream.meta } } : {}), rounds: upstream.rounds };
}

/** What a retry adds to the request's params. */
export interface RoundParams {
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  readonly requestState?: string;
}

/** Rounds the host answers in a row before it gives up on an upstream that keeps asking (the SDK's own cap). */
export const MAX_HOST_ROUNDS = 10;

/** Whether a result is an `input_required` round (either the upstream's or one for the client). */
export function isInputRound(result: unknown): result is ClientInputRound {
  return isInputRequiredResult(result);
}

function retryParams(responses: Readonly<Record<string, unknown>> | undefined, requestState: string | undefined): RoundParams {
  return {
    ...(responses && Object.keys(responses).length > 0 ? { inputResponses: responses } : {}),
    requestState,
  };
}

/**
 * Sends the request, and again with the host's answers while the upstream asks only what the host
 * answers. Returns the complete result, or the first round that has something for the client.
 */
export async function runClientRounds<R>(
  what: string,
  rounds: ClientRounds,
  host: ServerRequestHandlers,
  send: (params: RoundParams) => Promise<R | InputRequiredResult>,
): Promise<R | ClientInputRound> {
  let params = retryParams(rounds.inputResponses, rounds.requestState);
  for (let round = 1; round <= MAX_HOST_ROUNDS; round += 1) {
    const result = await send(params);
    if (!isInputRequiredResult(result)) return result;
    const forClient: Record<string, unknown> = {};
    const forHost: [string, unknown][] = [];
    for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
      const kind = KIND_OF[(request as { method?: unknown }).method as string];
      if (kind !== undefined && rounds.clientAnswers.has(kind)) forClient[key] = request;
      else forHost.push([key, request]);
    }
    const answered = Object.fromEntries(
      await Promise.all(forHost.map(async ([key, request]) => [key, await answerForHost(host, key, request)] as const)),
    );
    if (Object.keys(forClient).length > 0 || forHost.length === 0) {
      return {
        resultType: 'input_required',
        inputRequests: forClient as InputRequiredResult['inputRequests'],
        requestState: result.requestState,
        ...(forHost.length > 0 ? { answeredByHost: answered } : {}),
      };
    }
    params = retryParams(answered, result.requestState);
  }
  throw new SwitchboardError('PROTOCOL_ERROR', `${what} still required input after ${MAX_HOST_ROUNDS} rounds that the host answered`);
}

/**
 * One input request answered by `host` (the host's handlers, or a caller's relay through them),
 * validated first: the upstream may send anything. Also what a server's task asks (serverTasks.ts).
 */
export async function answerForHost(host: ServerRequestHandlers, key: string, request: unknown): Promise<unknown> {
  const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
  const invalid = (detail: string) => new SwitchboardError('PROTOCOL_ERROR', `input request "${key.slice(0, 80)}" is not valid: ${detail}`);
  switch (method) {
    case 'elicitation/create': {
      const parsed = ElicitRequestParamsSchema.safeParse(params);
      if (!parsed.success || !host.elicit) throw invalid(parsed.success ? 'nobody can answer an elicitation here' : parsed.error.message);
      return host.elicit(parsed.data);
    }
    case 'sampling/createMessage': {
      const parsed = CreateMessageRequestParamsSchema.safeParse(params);
      if (!parsed.success || !host.sample)
        throw invalid(parsed.success ? 'nobody can answer a sampling request here' : parsed.error.message);
      return host.sample(parsed.data);
    }
    case 'roots/list':
      if (!host.listRoots) throw invalid('nobody can list roots here');
      return host.listRoots();
    default:
      throw invalid(`unknown method ${JSON.stringify(method).slice(0, 80)}`);
  }
}
