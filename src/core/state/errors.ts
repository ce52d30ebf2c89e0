// The one error of the core: what a connection reports, and why a request was refused before it
// reached a server (the catalog's filters, the manager's list), with a stable `code` that callers
// switch on instead of parsing messages. It is translated only at the edges: to JSON-RPC by the
// gateway (gateway/exposure/callErrors.ts), to words by the editor and the CLI.
import type { ConnectionErrorCode } from './errorCodes';
import type { SignInReason } from './serverState';

/** Why a request was refused before it reached a server; nothing was sent. */
export type RefusalCode =
  /** The tool exists but a filter rule (or the budget) hides it; `rule` says which. */
  | 'TOOL_FILTERED'
  /** The user switched the tool off (mcpSwitchboard.tools.disabled). */
  | 'TOOL_DISABLED'
  /** Configuration or trust holds the server back (disabled, invalid, blocked): nothing of it is offered. */
  | 'SERVER_HELD_BACK'
  /** The server failed, stopped or was removed while the request waited for it. */
  | 'SERVER_UNAVAILABLE'
  /** No server of that name is configured. */
  | 'UNKNOWN_SERVER';

export type ErrorCode = ConnectionErrorCode | RefusalCode;

const REFUSALS: ReadonlySet<ErrorCode> = new Set<RefusalCode>([
  'TOOL_FILTERED',
  'TOOL_DISABLED',
  'SERVER_HELD_BACK',
  'SERVER_UNAVAILABLE',
  'UNKNOWN_SERVER',
]);

/** Whether the code is a refusal (nothing reached a server), not a connection's failure. */
export function isRefusal(code: ErrorCode): code is RefusalCode {
  return REFUSALS.has(code);
}

/** Why a tool is not exposed: the filter rule that hides it. */
export type FilterRule =
  | { readonly kind: 'serverDeny'; readonly pattern: string }
  | { readonly kind: 'serverAllow' }
  | { readonly kind: 'globalDeny'; readonly pattern: string }
  | { readonly kind: 'disabledSetting' }
  | { readonly kind: 'readOnlyOnly' }
  | { readonly kind: 'malformedSchema'; readonly reason: string }
  | { readonly kind: 'filterError'; readonly reason: string }
  | { readonly kind: 'budget'; readonly maxExposed: number }
  | { readonly kind: 'toolSet'; readonly name: string }
  /** A team gateway's policy keeps the tool from this user (their view of the catalog only). */
  | { readonly kind: 'policy' };

/** Why a sign-in is needed, and the scope to ask for when the server named one. */
export interface SignInNeed {
  readonly reason: SignInReason;
  readonly scope?: string;
}

export interface SwitchboardErrorOptions {
  readonly cause?: unknown;
  /** JSON-RPC error code, for SERVER_ERROR. */
  readonly rpcCode?: number;
  /** JSON-RPC error data, for SERVER_ERROR. */
  readonly data?: unknown;
  /** HTTP status, for HTTP_ERROR. */
  readonly status?: number;
  /** The request provably never reached the server, so sending it again cannot repeat an effect. */
  readonly notSent?: boolean;
  /** For NEEDS_SIGN_IN. */
  readonly signIn?: SignInNeed;
  /** For TOOL_FILTERED and TOOL_DISABLED. */
  readonly rule?: FilterRule;
  /** The server a refusal is about, when the caller named the tool by its qualified name. */
  readonly server?: string;
}

export class SwitchboardError<C extends ErrorCode = ErrorCode> extends Error {
  readonly rpcCode?: number;
  readonly data?: unknown;
  readonly status?: number;
  readonly notSent: boolean;
  readonly signIn?: SignInNeed;
  readonly rule?: FilterRule;
  readonly server?: string;

  constructor(
    readonly code: C,
    message: string,
    options: SwitchboardErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchboardError';
    this.rpcCode = options.rpcCode;
    this.data = options.data;
    this.status = options.status;
    this.notSent = options.notSent ?? false;
    if (options.signIn) this.signIn = options.signIn;
    if (options.rule) this.rule = options.rule;
    if (options.server !== undefined) this.server = options.server;
  }
}

/** A request that names a server the configuration does not have (it was never sent). */
export function unknownServer(server: string): SwitchboardError {
  return new SwitchboardError('UNKNOWN_SERVER', `no server named "${server}" is configured`, { notSent: true });
}

export function isSwitchboardError(error: unknown, code?: ErrorCode): error is SwitchboardError {
  return error instanceof SwitchboardError && (code === undefined || error.code === code);
}

/** What a connection fails with: the error with one of the connection's own codes (the error state's). */
export type ConnectionFailure = SwitchboardError<ConnectionErrorCode>;

export function isConnectionFailure(error: unknown): error is ConnectionFailure {
  return error instanceof SwitchboardError && !isRefusal(error.code);
}
