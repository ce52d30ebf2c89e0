// The SDK client's callbacks for one session: transport errors, close, and the notifications a
// server sends on its own. Each reports to the session that owns the client now: a client replaced
// by a session renewal, or one whose session is not yet opened, reports nothing.
import { SseError, type Client, type LoggingMessageNotification, type Transport } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errorMessage';
import type { Logger } from '../base/logging';
import type { TransportType } from '../config';
import { SwitchboardError } from './link';
import type { OfferList } from './offer';

/** What the session reports to its connection; each gets the session it came from. */
export interface SessionHooks<S> {
  /** The transport closed (process exit, stream end, close()). */
  readonly onClosed: (session: S) => void;
  readonly onToolListChanged: (session: S) => void;
  /** `notifications/resources/list_changed` or `prompts/list_changed`. */
  readonly onOfferChanged?: (session: S, list: OfferList) => void;
  readonly onResourceUpdated?: (session: S, uri: string) => void;
  /** `notifications/message`: what the server logs. */
  readonly onLogMessage?: (session: S, params: LoggingMessageNotification['params']) => void;
}

export interface WiredSession {
  readonly isClosing: boolean;
  /** Whether `client` is the session's current client. */
  owns(client: Client): boolean;
}

/** Sets the client's handlers; `holder.session` is filled in once the session is opened. */
export function wireClient<S extends WiredSession>(
  client: Client,
  transport: Transport,
  kind: TransportType,
  hooks: SessionHooks<S>,
  logger: Logger,
  holder: { session?: S },
): void {
  client.onerror = (error) => {
    const session = holder.session;
    if (session?.isClosing) return;
    if (error instanceof SwitchboardError && error.code === 'PROTOCOL_ERROR') logger.warn(error.message);
    else logger.debug(`transport: ${errorMessage(error)}`);
    // The SSE stream is the connection: once it errors the server-side session is gone, even if
    // EventSource reconnects on its own (it would land in a new, uninitialized session).
    if (kind === 'sse' && error instanceof SseError && session) void transport.close();
  };
  const current = (): S | undefined => {
    const session = holder.session;
    return session && session.owns(client) ? session : undefined;
  };
  client.onclose = () => {
    // A renewal replaces the link; the old one closing is not the session closing.
    const session = current();
    if (session) hooks.onClosed(session);
  };
  const forward = (report: (session: S) => void) => () => {
    const session = current();
    if (session) report(session);
  };
  client.setNotificationHandler(
    'notifications/tools/list_changed',
    forward((session) => hooks.onToolListChanged(session)),
  );
  client.setNotificationHandler(
    'notifications/resources/list_changed',
    forward((session) => hooks.onOfferChanged?.(session, 'resources')),
  );
  client.setNotificationHandler(
    'notifications/prompts/list_changed',
    forward((session) => hooks.onOfferChanged?.(session, 'prompts')),
  );
  client.setNotificationHandler('notifications/resources/updated', (notification) =>
    forward((session) => hooks.onResourceUpdated?.(session, notification.params.uri))(),
  );
  client.setNotificationHandler('notifications/message', (notification) =>
    forward((session) => hooks.onLogMessage?.(session, notification.params))(),
  );
}
