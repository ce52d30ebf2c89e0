// `serve --stdio`: the gateway's aggregated endpoint (every exposed tool, under its qualified name)
// for one client on the process's own stdin and stdout, as an agent launches any stdio server.
// The same session server as a 2025 HTTP session gets: what servers ask goes back to this client,
// tasks it drives itself are its own, and it is told what a 2025 session is told: the list of tools
// changed, the resources or prompts changed, a subscribed resource was updated, a log message.
import type { Transport } from '@modelcontextprotocol/server';
import { systemClock, type Clock } from '../base/clock';
import { containFailure } from '../base/contain';
import { errorMessage } from '../base/errorMessage';
import type { Logger } from '../base/logging';
import type { OfferSource, ToolSource } from '../catalog';
import { RelayRouter } from '../connection';
import { type GatewayTasks, SessionTasks } from './tasks';
import { AGGREGATED, type EndpointId } from './http';
import { listedTools, listFingerprint, fullAccess } from './exposure';
import { OfferNotifier, SessionLedger, unsubscribeSession, type NotifiedSession } from './offers';
import { createSessionServer } from './sessionServer';
import { CallPassThrough } from './callPassThrough';
import { sessionRelay } from './rounds';
import { tapTransport } from '../sdk';
import { onSettledChange } from './settledChanges';

export interface StdioSessionOptions {
  readonly source: ToolSource;
  readonly offers?: OfferSource;
  readonly relays?: RelayRouter;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** This Switchboard's id, in the trail of what it lists (base/selfLoop.ts). */
  readonly switchboardId?: string;
  /** Default the aggregated endpoint; the machine host serves one server's (its upstream names). */
  readonly endpoint?: EndpointId;
  /**
   * On a server's endpoint: plain tool calls are made without the session server's parsing, their
   * results written back as the server sent them (callPassThrough.ts). For a client that validates
   * both itself: a window on the machine host's socket.
   */
  readonly passToolCalls?: boolean;
}

export interface StdioSession {
  /** Resolves when the client went away (it closed stdin) or close() was called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves the aggregated endpoint on `transport` (a StdioServerTransport on the process's pipes). */
export async function serveStdioSession(options: StdioSessionOptions, transport: Transport): Promise<StdioSession> {
  const { source, offers, relays, logger } = options;
  const endpoint = options.endpoint ?? AGGREGATED;
  const tasks: GatewayTasks = new SessionTasks(options.clock ?? systemClock);
  const ledger = new SessionLedger();
  const router = relays ?? new RelayRouter();
  const server = createSessionServer(endpoint, source, logger, {
    ...(offers ? { offers, ledger } : {}),
    relays: router,
    ...(options.switchboardId ? { switchboardId: options.switchboardId } : {}),
    tasks,
  });
  // The one session of this process is the notifier's only target; there are no 2026-07-28 listeners.
  let session: NotifiedSession | undefined;
  const clock = options.clock ?? systemClock;
  const notifier = offers
    ? new OfferNotifier(offers, { sessions: () => (session ? [['stdio', session]] : []), notifyModern: () => undefined }, logger, clock)
    : undefined;
  const access = fullAccess(source, offers);
  if (notifier)
    session = {
      endpoint,
      server,
      ledger,
      offerPrint: notifier.fingerprint(access, endpoint),
      access,
      tokenUntil: Number.POSITIVE_INFINITY,
    };
  let closedResolve: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (closedResolve = resolve));
  let fingerprint = listFingerprint(listedTools(source.snapshot(), endpoint));
  const subscription = onSettledChange(source, clock, (snapshot) =>
    containFailure(logger, 'stdio session: telling the client about changed tools', () => {
      const next = listFingerprint(listedTools(snapshot, endpoint));
      if (next === fingerprint) return;
      fingerprint = next;
      server.sendToolListChanged().catch((error: unknown) => logger.debug(`tools/list_changed not delivered: ${errorMessage(error)}`));
    }),
  );
  const passThrough =
    options.passToolCalls === true && endpoint.kind === 'server'
      ? new CallPassThrough({
          server: endpoint.server,
          source,
          relays: router,
          relay: () =>
            sessionRelay(server, {
              elicitInput: (params) => server.elicitInput(params),
              requestSampling: (params) => server.createMessage(params),
            }),
          send: (message) => transport.send(message),
          logger,
        })
      : undefined;
  if (passThrough) tapTransport(transport, logger, { take: (message) => passThrough.take(message) });
  server.onclose = () => {
    passThrough?.close();
    subscription.dispose();
    notifier?.dispose();
    tasks.dispose();
    unsubscribeSession(ledger, offers, logger);
    closedResolve();
  };
  await server.connect(transport);
  return { closed, close: () => server.close() };
}
