// The states a server can be in, each carrying the data the UI shows for it. The connection moves
// between stopped/idle/starting/running/reconnecting/error/needsSignIn, and is disabled when its
// definition is; invalid and blocked are decided before a connection exists (by configuration or
// trust), and a server waiting for a start slot reads as starting: the manager lays those over the
// connection's state in one place (manager/managedServer.ts). They live in one union so that one
// event stream describes a server end to end, and every switch over it is exhaustive.
import type { ConfigDiagnostic, TransportType } from '../config';
import type { ConnectionErrorCode } from './errorCodes';
import { deepFreeze } from '../base/freeze';

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  /** As the server gave them, bounded (see identityOf): for the gateway's per-server endpoint. */
  readonly title?: string;
  readonly websiteUrl?: string;
  readonly icons?: readonly ServerIcon[];
}

/** An icon a server names for itself: `data:` or https only, at most 64 KiB of `src`. */
export interface ServerIcon {
  readonly src: string;
  readonly mimeType?: string;
  readonly sizes?: readonly string[];
  readonly theme?: 'light' | 'dark';
}

/** The most of one server's instructions kept and passed on (64 KiB of text). */
export const MAX_INSTRUCTIONS = 64 * 1024;

/** A server's instructions, cut to MAX_INSTRUCTIONS: a hostile server cannot bloat every client's context. */
export function boundedInstructions(text: string | undefined): string | undefined {
  if (!text) return undefined;
  // The marker fits inside the bound, so a cut text still passes the cache's check.
  const marker = '\n[…cut at 64 KiB]';
  return text.length > MAX_INSTRUCTIONS ? `${text.slice(0, MAX_INSTRUCTIONS - marker.length)}${marker}` : text;
}

const MAX_ICONS = 8;
const MAX_ICON_SRC = 64 * 1024;

/**
 * The identity a server reports, kept within bounds: a title and website of sane length (the
 * website https only), and up to 8 icons whose `src` is `data:` or https and at most 64 KiB.
 */
export function identityOf(info: {
  readonly name: string;
  readonly version: string;
  readonly title?: unknown;
  readonly websiteUrl?: unknown;
  readonly icons?: unknown;
}): ServerInfo {
  const text = (value: unknown, max: number) => (typeof value === 'string' && value.length <= max ? value : undefined);
  const title = text(info.title, 200);
  const website = text(info.websiteUrl, 2048);
  const icons = (Array.isArray(info.icons) ? info.icons : [])
    .filter(
      (icon): icon is Record<string, unknown> =>
        typeof icon === 'object' && icon !== null && typeof (icon as { src?: unknown }).src === 'string',
    )
    .filter((icon) => (icon.src as string).length <= MAX_ICON_SRC && /^(data:image\/|https:\/\/)/.test(icon.src as string))
    .slice(0, MAX_ICONS)
    .map((icon): ServerIcon => ({
      src: icon.src as string,
      ...(typeof icon.mimeType === 'string' ? { mimeType: icon.mimeType.slice(0, 100) } : {}),
      ...(Array.isArray(icon.sizes) ? { sizes: icon.sizes.filter((size): size is string => typeof size === 'string').slice(0, 8) } : {}),
      ...(icon.theme === 'light' || icon.theme === 'dark' ? { theme: icon.theme } : {}),
    }));
  return {
    name: info.name,
    version: info.version,
    ...(title ? { title } : {}),
    ...(website && website.startsWith('https://') ? { websiteUrl: website } : {}),
    ...(icons.length > 0 ? { icons } : {}),
  };
}

export interface StoppedState {
  readonly kind: 'stopped';
}

/**
 * Not running, and started by the first request that needs it. `lazy`: not started since the
 * window opened (or only to learn its lists); `unused`: stopped after `idleStopMinutes` without use.
 */
export interface IdleState {
  readonly kind: 'idle';
  readonly reason: 'lazy' | 'unused';
  readonly since: number;
}

export interface StartingState {
  readonly kind: 'starting';
  readonly since: number;
  /** Set when this start is an automatic reconnect attempt (1-based). */
  readonly attempt?: number;
  readonly maxAttempts?: number;
}

export interface RunningState {
  readonly kind: 'running';
  /** The transport actually in use: `sse` when a streamable-HTTP definition fell back. */
  readonly transport: TransportType;
  readonly serverInfo: ServerInfo;
  readonly protocolVersion: string;
  /** `legacy`: a 2025 revision, opened with initialize; `modern`: 2026-07-28 or later. */
  readonly era: 'legacy' | 'modern';
  /** As sent by the server in its initialize result. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly instructions?: string;
  readonly since: number;
  /** Time from the start of the successful attempt to its first complete tools/list. */
  readonly connectMs: number;
  readonly toolCount: number;
  /** Tools held back (too deep, too large, not valid MCP); the others are usable. */
  readonly quarantinedTools?: readonly { readonly name: string; readonly problem: string }[];
}

export interface ReconnectingState {
  readonly kind: 'reconnecting';
  /** The attempt that will run at `nextTryAt` (1-based). */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly nextTryAt: number;
  /** Why the previous connection or attempt ended. */
  readonly lastError: string;
}

export interface ErrorState {
  readonly kind: 'error';
  readonly code: ConnectionErrorCode;
  readonly message: string;
  /** The last lines the stdio process wrote to stderr (empty for HTTP). */
  readonly stderrTail: readonly string[];
  /**
   * For a sandboxed server: the `host:port` its sandbox last refused it in this attempt, from the
   * sandbox's own lines (a server's look-alike is not one), most likely what it failed for.
   */
  readonly sandboxDenied?: string;
  readonly since: number;
  /**
   * For a remote server whose failure waiting may heal (unreachable, 5xx, timeouts): when the slow
   * retry after the circuit breaker opened runs next (epoch ms).
   */
  readonly nextTryAt?: number;
}

/**
 * `signInRequired`: no tokens, or tokens that could not be refreshed; `scope`: the server asks for
 * more scope than the tokens carry (`insufficient_scope`); `refused`: the server refused a token it
 * was just given (the retry after a refresh got 401 again).
 */
export type SignInReason = 'signInRequired' | 'scope' | 'refused';

/**
 * The server asks for OAuth and Switchboard has no usable credentials: never signed in, a refresh
 * the authorization server refused, a scope the server now wants. Waits for Sign In; never retries
 * by itself, so there is no loop of sign-in prompts.
 */
export interface NeedsSignInState {
  readonly kind: 'needsSignIn';
  readonly reason: SignInReason;
  readonly detail: string;
  /** The scope the next sign-in asks for, when the server named one. */
  readonly scope?: string;
  readonly since: number;
}

export interface DisabledState {
  readonly kind: 'disabled';
}

export interface InvalidState {
  readonly kind: 'invalid';
  readonly diagnostics: readonly ConfigDiagnostic[];
}

/** `consentPending`: the editor is asking the user right now. */
export type BlockedReason = 'untrusted' | 'consentPending' | 'consentDenied' | 'needsInput';

export interface BlockedState {
  readonly kind: 'blocked';
  readonly reason: BlockedReason;
  readonly detail: string;
}

export type ServerState =
  | StoppedState
  | IdleState
  | StartingState
  | RunningState
  | ReconnectingState
  | ErrorState
  | NeedsSignInState
  | DisabledState
  | InvalidState
  | BlockedState;

export type ServerStateKind = ServerState['kind'];

/** Every kind, once: a Record over the kinds, so a new state does not compile until it is listed. */
const KINDS: Record<ServerStateKind, true> = {
  stopped: true,
  idle: true,
  starting: true,
  running: true,
  reconnecting: true,
  error: true,
  needsSignIn: true,
  disabled: true,
  invalid: true,
  blocked: true,
};
export const STATE_KINDS = Object.keys(KINDS) as readonly ServerStateKind[];

export interface ServerStateChangeEvent {
  /** Server name (ServerDefinition.name). */
  readonly server: string;
  readonly state: ServerState;
  readonly previous: ServerState;
  /** Epoch milliseconds, from the connection's clock. */
  readonly at: number;
}

// The predicates every layer uses to ask about a state, kept next to the type so that adding a
// state means reviewing them here, not hunting for lists of kinds.

/** On its way up: a call or a tools/list waits for it (within its timeouts) instead of failing. */
export function isConnecting(kind: ServerStateKind): boolean {
  return kind === 'starting' || kind === 'reconnecting';
}

/** Not running, and started by the next request for it (a call, a read, a subscription). */
export function startsOnDemand(kind: ServerStateKind): boolean {
  return kind === 'idle';
}

/** States after which nothing happens without an outside call (start, reconnect, stop, config). */
export function isSettled(state: ServerState): boolean {
  return !isConnecting(state.kind);
}

/** A live or pending connection: Stop can end it, and Start has nothing to do. */
export function isActive(kind: ServerStateKind): boolean {
  return kind === 'running' || isConnecting(kind);
}

/**
 * Not held back by configuration or trust (disabled, invalid, blocked). Such a server keeps its
 * gateway endpoint and its place in chat while it starts, reconnects or fails.
 */
export function isServed(kind: ServerStateKind): boolean {
  return kind !== 'disabled' && kind !== 'invalid' && kind !== 'blocked';
}

/** Up, or idle until a request starts it: what the status bar counts as ready. */
export function isReady(kind: ServerStateKind): boolean {
  return kind === 'running' || startsOnDemand(kind);
}

/** Failed, or failing and retrying: what the status bar warns about. */
export function isInTrouble(kind: ServerStateKind): boolean {
  return kind === 'error' || kind === 'reconnecting';
}

/** Given up on: a failed connection, or an entry that does not parse. */
export function hasFailed(kind: ServerStateKind): boolean {
  return kind === 'error' || kind === 'invalid';
}

/** Held by the user's choice or action (off, not trusted or consented, not signed in): not a failure. */
export function waitsForUser(kind: ServerStateKind): boolean {
  return kind === 'disabled' || kind === 'blocked' || kind === 'needsSignIn';
}

/**
 * The state frozen all the way down, so that it is shared instead of copied: every reader (views,
 * events, the catalog) holds the one object its owner set, and none can change it for another.
 */
export function frozenState<S extends ServerState>(state: S): S {
  return deepFreeze(state);
}
