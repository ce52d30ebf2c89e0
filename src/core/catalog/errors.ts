import type { FilterRule } from './types';

export type CatalogErrorCode =
  /** No such server, or the server does not offer a tool of that name. */
  | 'UNKNOWN_TOOL'
  /** The tool exists but a filter rule (or the budget) hides it; `rule` says which. */
  | 'TOOL_FILTERED'
  /** The user switched the tool off (mcpSwitchboard.tools.disabled). */
  | 'TOOL_DISABLED'
  /** Configuration or trust holds the server back (disabled, invalid, blocked): nothing of it is offered. */
  | 'SERVER_HELD_BACK'
  /** The server is not running and did not start within requestMs (or failed, or was stopped). */
  | 'SERVER_UNAVAILABLE'
  /** The caller's AbortSignal fired while waiting for the server. */
  | 'CANCELLED';

/** Why the catalog refused a call before it reached the server. */
export class CatalogError extends Error {
  override readonly name = 'CatalogError';

  constructor(
    readonly code: CatalogErrorCode,
    message: string,
    readonly rule?: FilterRule,
  ) {
    super(message);
  }
}

export function isCatalogError(error: unknown, code?: CatalogErrorCode): error is CatalogError {
  return error instanceof CatalogError && (code === undefined || error.code === code);
}
