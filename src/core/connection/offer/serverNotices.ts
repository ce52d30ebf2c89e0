// What a server tells its client on its own: resource updates (of subscribed URIs) and log
// messages. Log messages go to the server's log at the matching level, bounded in size.
import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/client';
import type { Logger } from '../../base/logging';

export type ServerNotice =
  | { readonly kind: 'resourceUpdated'; readonly server: string; readonly uri: string }
  | { readonly kind: 'log'; readonly server: string; readonly params: LoggingMessageNotification['params'] };

const MAX_LOG_TEXT = 2_000;

/** How a server's log levels map onto ours; notice and above are worth a user's attention. */
function logLine(logger: Logger, level: LoggingLevel, text: string): void {
  if (level === 'debug') logger.debug(text);
  else if (level === 'info' || level === 'notice') logger.info(text);
  else if (level === 'warning') logger.warn(text);
  else logger.error(text);
}

function describeLogData(data: unknown): string {
  const text = typeof data === 'string' ? data : (JSON.stringify(data) ?? String(data));
  return text.length > MAX_LOG_TEXT ? `${text.slice(0, MAX_LOG_TEXT)}…` : text;
}

/** Writes a server's `notifications/message` to its log. */
export function logServerMessage(logger: Logger, params: LoggingMessageNotification['params']): void {
  logLine(logger, params.level, `log${params.logger ? ` (${params.logger.slice(0, 80)})` : ''}: ${describeLogData(params.data)}`);
}
