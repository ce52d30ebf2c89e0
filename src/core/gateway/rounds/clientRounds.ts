// The gateway's side of 2026-07-28 multi-round-trip requests (SEP-2322). A 2026-07-28 client that
// declared what the upstream asks (elicitation, sampling, roots) gets the upstream's
// `input_required` round in its own request, and finishes it by retrying with `inputResponses`.
// The upstream sees that client's capabilities, plus what the host answers itself (the editor's
// dialogs), so an upstream can refuse a client with -32021 as it would directly.
//
// The `requestState` the client holds is the gateway's own: the upstream's state, what the host
// answered of the same round, the request it belongs to and a nonce, sealed with an HMAC (the
// SDK's codec, verified before a handler runs: a tampered or expired state is -32602). A state is
// spent the moment a retry carrying it is accepted, whatever happens to that retry afterwards (an
// error, a timeout, a dropped connection): the upstream acts on a round once, and a replay is refused
// for as long as the state could otherwise be valid.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY as CLIENT_CAPABILITIES,
  CLIENT_INFO_META_KEY as CLIENT_INFO,
  LOG_LEVEL_META_KEY as LOG_LEVEL,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { InputRequiredResult } from '@modelcontextprotocol/client';
import { type CallerOptions, CAPABILITY_OF, isInputRound, TASKS_EXTENSION, type ClientInputRound, type InputKind } from '../../connection';
import { rpcError } from '../exposure';
import { principalOf } from '../../identity';

const KINDS: readonly InputKind[] = ['elicitation', 'sampling', 'roots'];

/**
 * A state lives as long as the SDK codec's default. Spent nonces are kept as long, at most
 * MAX_SPENT_ROUNDS of them; past that, the oldest is forgotten and every state minted no later than
 * it is refused from then on (`floor`), so that a forgotten nonce can never be replayed.
 */
export const ROUND_TTL_SECONDS = 600;
export const MAX_SPENT_ROUNDS = 10_000;
/** The host's answers ride in the state the client holds; more than this is refused. */
export const MAX_SEALED_BYTES = 256 * 1024;

interface SealedRound {
  /** The request: endpoint, method, target. */
  readonly b: string;
  /** The upstream's own requestState. */
  readonly s?: string;
  /** What the host answered of this round. */
  readonly h?: Readonly<Record<string, unknown>>;
  readonly n: string;
  /** When it was minted, on the gateway's clock. */
  readonly t: number;
}

/** Whether this 2026-07-28 request declared the tasks extension (in its `_meta` envelope). */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const extensions = (envelope?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return extensions?.[TASKS_EXTENSION] !== undefined && extensions[TASKS_EXTENSION] !== null;
}

/** How a team gateway's replica marks what it makes as its own (the replicas module's ReplicaRouter does). */
export interface StateMarks {
  /** `rest`, marked as this replica's. */
  mint(rest: string): string;
  /** `id` without this replica's mark; as it is when it has none. */
  local(id: string): string;
}

/** One request of a client, between its forward and its reply. */
export interface OpenRound {
  /** What the upstream request carries for this client. */
  readonly options: Pick<CallerOptions, 'meta' | 'rounds' | 'clientTasks' | 'onBehalfOf'>;
  /** The outcome as this client gets it: the result, or the round for it to answer. */
  reply<R>(outcome: R | ClientInputRound): Promise<R | InputRequiredResult>;
}

export class GatewayRounds {
  private readonly codec: RequestStateCodec<SealedRound> = createRequestStateCodec<SealedRound>({
    key: randomBytes(32),
    ttlSeconds: ROUND_TTL_SECONDS,
  });
  /** Nonce -> when it may be forgotten (its state has expired by then) and when it was minted, oldest first. */
  private readonly spent = new Map<string, { readonly until: number; readonly minted: number }>();
  /** States minted at or before this are refused: a nonce of one of them may have been forgotten. */
  private floor = -Infinity;

  /**
   * @param hostAnswers what the host answers itself when a client did not declare it.
   * @param marks a team gateway's replica marks its states as its own (replicas/replicas.ts), so that a retry
   *   that reaches another replica is sent on to this one, which holds the round (and its spent nonces).
   */
  constructor(
    private readonly hostAnswers: () => ReadonlySet<InputKind>,
    private readonly now: () => number = Date.now,
    private readonly marks?: StateMarks,
  ) {}

  /** For `ServerOptions.requestState.verify`: a state this gateway did not seal is refused before any handler runs. */
  readonly verify = (state: string, ctx: ServerContext): Promise<SealedRound> =>
    this.codec.verify(this.marks ? this.marks.local(state) : state, ctx);

  /**
   * The request of a 2026-07-28 client to `target` (a tool, a prompt, a resource) by `method` on
   * `endpoint`; undefined for a 2025 client, which has sessions and real requests.
   */
  open(ctx: ServerContext, endpoint: string, method: string, target: string): OpenRound | undefined {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    if (envelope === undefined) return undefined;
    // What names one request for its state: a state sealed for one tool is refused for another.
    const binding = `${endpoint}\u0000${method}\u0000${target}`;
    const declared = (envelope[CLIENT_CAPABILITIES] ?? {}) as Record<string, unknown>;
    const clientAnswers = new Set(KINDS.filter((kind) => declared[kind] !== undefined && declared[kind] !== null));
    const sealed = this.unseal(ctx, binding);
    // The answer to the gateway's own question (a sign-in) is the gateway's, not the upstream's.
    const responses = Object.fromEntries(
      Object.entries({ ...sealed?.h, ...ctx.mcpReq.inputResponses }).filter(([key]) => !key.startsWith(SIGN_IN_KEY)),
    );
    const host = this.hostAnswers();
    const capabilities = Object.fromEntries(
      KINDS.flatMap((kind) => (clientAnswers.has(kind) ? [[kind, declared[kind]]] : host.has(kind) ? [[kind, CAPABILITY_OF[kind]]] : [])),
    );
    const options: OpenRound['options'] = {
      meta: { [CLIENT_CAPABILITIES]: capabilities, ...(envelope[LOG_LEVEL] !== undefined ? { [LOG_LEVEL]: envelope[LOG_LEVEL] } : {}) },
      clientTasks: { declared: declaresTasks(ctx) },
      rounds: {
        clientAnswers,
        ...(Object.keys(responses).length > 0 ? { inputResponses: responses } : {}),
        ...(sealed?.s !== undefined ? { requestState: sealed.s } : {}),
      },
    };
    return { options, reply: (outcome) => this.reply(outcome, binding) };
  }

  private unseal(ctx: ServerContext, binding: string): SealedRound | undefined {
    const sealed = ctx.mcpReq.requestState<SealedRound>();
    if (sealed === undefined) return undefined;
    if (typeof sealed !== 'object' || sealed.b !== binding || typeof sealed.n !== 'string' || typeof sealed.t !== 'number') {
      throw rpcError(ProtocolErrorCode.InvalidParams, 'This requestState belongs to another request');
    }
    this.forgetExpired();
    if (this.spent.has(sealed.n))
      throw rpcError(ProtocolErrorCode.InvalidParams, 'This requestState was already used: send the one of the latest round');
    if (sealed.t <= this.floor)
      throw rpcError(
        ProtocolErrorCode.InvalidParams,
        'This requestState is too old to be checked against the ones already used: send the request again without it',
      );
    // Spent now, before anything reaches the upstream: a retry that fails or is cut off cannot be replayed.
    this.spend(sealed);
    return sealed;
  }

  private async reply<R>(outcome: R | ClientInputRound, binding: string): Promise<R | InputRequiredResult> {
    if (!isInputRound(outcome)) return outcome;
    const { answeredByHost, requestState, inputRequests } = outcome;
    const hasHostAnswers = answeredByHost !== undefined && Object.keys(answeredByHost).length > 0;
    if (requestState === undefined && !hasHostAnswers) return { resultType: 'input_required', inputRequests };
    const round: SealedRound = {
      b: binding,
      n: randomUUID(),
      t: this.now(),
      s: requestState,
      ...(hasHostAnswers ? { h: answeredByHost } : {}),
    };
    if (JSON.stringify(round).length > MAX_SEALED_BYTES) {
      throw rpcError(
        ProtocolErrorCode.InternalError,
        `The answers to this round are over ${MAX_SEALED_BYTES / 1024} KiB, too large to carry in its requestState`,
      );
    }
    const state = await this.codec.mint(round);
    return { resultType: 'input_required', inputRequests, requestState: this.marks ? this.marks.mint(state) : state };
  }

  private spend(sealed: SealedRound): void {
    if (this.spent.size >= MAX_SPENT_ROUNDS) {
      const [oldest, entry] = this.spent.entries().next().value as [string, { minted: number }];
      this.spent.delete(oldest);
      this.floor = Math.max(this.floor, entry.minted);
    }
    this.spent.set(sealed.n, { until: this.now() + ROUND_TTL_SECONDS * 1000, minted: sealed.t });
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [nonce, { until }] of this.spent) {
      if (until > now) break;
      this.spent.delete(nonce);
    }
  }
}

/** The key of the gateway's own input request: sign in to an upstream as yourself (never passed upstream). */
const SIGN_IN_KEY = 'mcp-switchboard/sign-in';

/**
 * A request of a 2026-07-28 client that needs its user to sign in to an upstream first (a team
 * gateway's `oauth.perUser: "signIn"`): the link comes back as a URL elicitation in an
 * `input_required` result, which the client shows and answers by calling again, now signed in.
 * A client that did not declare URL elicitation is told what it lacks, with the link in words.
 * Undefined for a 2025 request, which gets the -32042 error its revision has, and for any other
 * error.
 */
export function signInRound(error: unknown, ctx: ServerContext): InputRequiredResult | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  if (envelope === undefined || !(error instanceof ProtocolError) || error.code !== ProtocolErrorCode.UrlElicitationRequired) return;
  const [link] = ((error.data as { elicitations?: unknown } | undefined)?.elicitations ?? []) as Array<Record<string, unknown>>;
  if (typeof link?.url !== 'string') return;
  const declared = (envelope[CLIENT_CAPABILITIES] ?? {}) as { elicitation?: { url?: unknown } };
  if (declared.elicitation?.url === undefined) {
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { elicitation: { url: {} } } },
      `${error.message}: open ${link.url} in a browser, then call again`,
    );
  }
  const id = typeof link.elicitationId === 'string' ? link.elicitationId : randomUUID();
  return {
    resultType: 'input_required',
    inputRequests: {
      [`${SIGN_IN_KEY}/${id}`]: {
        method: 'elicitation/create',
        params: { mode: 'url', url: link.url, elicitationId: id, message: String(link.message ?? error.message) },
      },
    },
  };
}

/**
 * Which client a 2026-07-28 request comes from, for the shares of what the gateway keeps for such
 * clients (tasks, parked calls): they have no sessions, and with one token every client looks alike
 * but for the name and version each says it is. A client that lies gets the share of the name it
 * gives; the gateway's totals still bound everything.
 */
export function clientKeyOf(ctx: ServerContext): string {
  // On a team gateway a client is also its user: shares and tasks are per user, never shared.
  const principal = principalOf(ctx.http?.authInfo);
  return principal ? `${principal.key}\u0000${clientNameOf(ctx)}` : clientNameOf(ctx);
}

/** `name@version` as a 2026-07-28 request's envelope gives them (bounded). */
export function clientNameOf(ctx: ServerContext): string {
  const info = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO] as
    { name?: unknown; version?: unknown } | undefined;
  const name = typeof info?.name === 'string' ? info.name.slice(0, 200) : '(unnamed)';
  const version = typeof info?.version === 'string' ? info.version.slice(0, 50) : '';
  return `${name}@${version}`;
}

/**
 * A 2025 session's request: no rounds (its upstream's requests are relayed as requests of the
 * session's own), but the log level it set, which a 2026-07-28 upstream takes with each request.
 */
export function sessionRound(logLevel: string | undefined): OpenRound {
  return logLevel === undefined ? PLAIN_ROUND : { options: { meta: { [LOG_LEVEL]: logLevel } }, reply: passOn };
}

const passOn = <R>(outcome: R): Promise<R> => Promise.resolve(outcome);
/** The round of a 2025 session that set no log level: every request of most sessions. */
const PLAIN_ROUND: OpenRound = { options: {}, reply: passOn };
