// What every forwarded request carries from the client's request: its cancellation, and the
// upstream's progress re-addressed to the client's own progress token (the upstream knows only the
// token the gateway's own client chose).
import type { Progress, ServerContext } from '@modelcontextprotocol/server';
import type { CallerOptions } from '../../connection';
import type { OpenRound } from './clientRounds';
import type { Logger } from '../../base/logging';
import { errorMessage } from '../../base/errorMessage';

/**
 * `what` names the request in the debug line of a progress notification that was not delivered;
 * `round`, for a 2026-07-28 client, what its upstream request carries for it (clientRounds.ts).
 */
export function clientRequestOptions(
  ctx: ServerContext,
  params: { _meta?: { progressToken?: string | number } } | undefined,
  logger: Logger,
  what: string,
  round?: OpenRound,
): CallerOptions {
  const progressToken = params?._meta?.progressToken;
  const base = { signal: ctx.mcpReq.signal, ...round?.options };
  if (progressToken === undefined) return base;
  return { ...base, onProgress: progressTo(progressToken, (notification) => ctx.mcpReq.notify(notification), logger, what) };
}

/** A progress notification as `notify` sends it to the client. */
export interface ProgressNotification {
  readonly method: 'notifications/progress';
  readonly params: Progress & { readonly progressToken: string | number };
}

/**
 * The upstream's progress, re-addressed to the client's own `progressToken` and sent with `notify`
 * (a session's context, or the pass-through's transport); one not delivered is logged, never thrown.
 */
export function progressTo(
  progressToken: string | number,
  notify: (notification: ProgressNotification) => Promise<void>,
  logger: Logger,
  what: string,
): (progress: Progress) => void {
  return (progress) => {
    notify({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch((error: unknown) =>
      logger.debug(`progress for ${what} not delivered: ${errorMessage(error)}`),
    );
  };
}
