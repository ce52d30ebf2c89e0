// What every forwarded request carries from the client's request: its cancellation, and the
// upstream's progress re-addressed to the client's own progress token (the upstream knows only the
// token the gateway's own client chose).
import type { Progress, ServerContext } from '@modelcontextprotocol/server';
import type { CallerOptions } from '../connection/connectionOptions';
import type { Logger } from '../base/logging';
import { errorMessage } from '../base/errorMessage';

/** `what` names the request in the debug line of a progress notification that was not delivered. */
export function clientRequestOptions(ctx: ServerContext, params: { _meta?: { progressToken?: string | number } } | undefined, logger: Logger, what: string): CallerOptions {
  const progressToken = params?._meta?.progressToken;
  if (progressToken === undefined) return { signal: ctx.mcpReq.signal };
  return {
    signal: ctx.mcpReq.signal,
    onProgress: (progress: Progress) => {
      ctx.mcpReq
        .notify({ method: 'notifications/progress', params: { ...progress, progressToken } })
        .catch((error: unknown) => logger.debug(`progress for ${what} not delivered: ${errorMessage(error)}`));
    },
  };
}
