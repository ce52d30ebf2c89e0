// Passes what servers announce about their offer on to the gateway's clients: list changes of
// resources and prompts (only to endpoints whose lists changed), updates of subscribed resources
// (to the 2025 sessions that subscribed, and to 2026-07-28 listeners through the SDK's handler),
// and log messages (to 2025 sessions of the server's endpoint and of the aggregated one). Each goes
// only to a client whose view shows the server (a team gateway's policy), and whose token is still
// valid: a change is measured in that client's own view, so a server it may not see changes nothing
// it is told.
import type { Server } from '@modelcontextprotocol/server';
import type { OfferChange, OfferSource } from '../../catalog';
import type { ServerNotice } from '../../connection';
import type { Disposable } from '../../base/events';
import type { Logger } from '../../base/logging';
import { containFailure } from '../../base/contain';
import { endpointKey, type EndpointId } from '../http';
import type { SubscriptionLedger } from './offerHandlers';
import type { SessionAccess } from '../exposure';
import type { Clock } from '../../base/clock';
import { offerFingerprint, type OfferFingerprint } from './offerIndex';
import { errorMessage } from '../../base/errorMessage';

/** Subscriptions per session are bounded like everything a client can make us hold. */
export const MAX_SESSION_SUBSCRIPTIONS = 1_000;

/** One 2025 session's subscribed (server, URI) pairs. */
export class SessionLedger implements SubscriptionLedger {
  private readonly entries = new Map<string, { server: string; uri: string }>();

  add(server: string, uri: string): boolean {
    const key = JSON.stringify([server, uri]);
    if (this.entries.has(key)) return false;
    if (this.entries.size >= MAX_SESSION_SUBSCRIPTIONS)
      throw new Error(`a session may hold at most ${MAX_SESSION_SUBSCRIPTIONS} resource subscriptions`);
    this.entries.set(key, { server, uri });
    return true;
  }

  remove(server: string, uri: string): boolean {
    return this.entries.delete(JSON.stringify([server, uri]));
  }

  has(server: string, uri: string): boolean {
    return this.entries.has(JSON.stringify([server, uri]));
  }

  /** Empties the ledger, returning what it held (to unsubscribe upstream). */
  drain(): { server: string; uri: string }[] {
    const all = [...this.entries.values()];
    this.entries.clear();
    return all;
  }
}

/** A session is gone: whatever it subscribed to upstream ends with it. */
export function unsubscribeSession(ledger: SessionLedger, offers: OfferSource | undefined, logger: Logger): void {
  for (const { server, uri } of ledger.drain()) {
    offers
      ?.unsubscribeResource(server, uri)
      .catch((error: unknown) => logger.debug(`unsubscribing ${uri.slice(0, 200)}: ${errorMessage(error)}`));
  }
}

export interface NotifiedSession {
  readonly endpoint: EndpointId;
  readonly server: Server;
  readonly ledger: SessionLedger;
  offerPrint: OfferFingerprint;
  /** What the session's user may see. */
  readonly access: SessionAccess;
  /** Until when its user's latest token is valid (epoch ms). */
  readonly tokenUntil: number;
}

/** An endpoint in one view: what is announced is measured and sent there. */
export type PrintOf = (access: SessionAccess, endpoint: EndpointId) => OfferFingerprint;

export interface NotifierTargets {
  sessions(): Iterable<[string, NotifiedSession]>;
  /**
   * 2026-07-28 endpoints: their handlers notify listeners. `printOf` gives each endpoint's lists in
   * each view, hashed once per change for sessions and listeners alike.
   */
  notifyModern(
    affects: (endpoint: EndpointId, access: SessionAccess) => boolean,
    what: { readonly announced: OfferChange['announced'] } | { readonly updated: string },
    printOf?: PrintOf,
  ): void;
}

/** Whether what `server` announces concerns a client of `endpoint` with `access`. */
function affects(endpoint: EndpointId, access: SessionAccess, server: string): boolean {
  return (endpoint.kind === 'aggregated' || endpoint.server === server) && access.allowsServer(server);
}

export class OfferNotifier implements Disposable {
  private readonly subscriptions: Disposable[];

  constructor(
    private readonly offers: OfferSource,
    private readonly targets: NotifierTargets,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.subscriptions = [
      offers.onDidChange((change) => containFailure(this.logger, "notifying a server's offer change", () => this.offerChanged(change))),
      offers.onNotice((notice) => containFailure(this.logger, "passing on a server's notice", () => this.passOnNotice(notice))),
    ];
  }

  /** The endpoint's lists as a client with `access` sees them. */
  fingerprint(access: SessionAccess, endpoint: EndpointId): OfferFingerprint {
    return offerFingerprint(access.offers ?? this.offers, endpoint);
  }

  dispose(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
  }

  /** A list goes out when it changed, or when its server announced it (then it may differ in what no print covers). */
  private offerChanged({ server, announced }: OfferChange): void {
    const prints = new Map<string, OfferFingerprint>();
    const printOf: PrintOf = (access, endpoint) => {
      const key = `${access.grant}\u0000${endpointKey(endpoint)}`;
      let print = prints.get(key);
      if (!print) prints.set(key, (print = this.fingerprint(access, endpoint)));
      return print;
    };
    const now = this.clock.now();
    for (const [id, session] of this.targets.sessions()) {
      if (!affects(session.endpoint, session.access, server) || session.tokenUntil <= now) continue;
      const print = printOf(session.access, session.endpoint);
      const before = session.offerPrint;
      session.offerPrint = print;
      const deliver = (what: string, send: () => Promise<void>) =>
        send().catch((error: unknown) => this.logger.debug(`${what} not delivered to session ${id}: ${errorMessage(error)}`));
      if (print.resources !== before.resources || announced.includes('resources'))
        void deliver('resources/list_changed', () => session.server.sendResourceListChanged());
      if (print.prompts !== before.prompts || announced.includes('prompts'))
        void deliver('prompts/list_changed', () => session.server.sendPromptListChanged());
    }
    this.targets.notifyModern((endpoint, access) => affects(endpoint, access, server), { announced }, printOf);
  }

  private passOnNotice(notice: ServerNotice): void {
    const now = this.clock.now();
    for (const [id, session] of this.targets.sessions()) {
      if (!affects(session.endpoint, session.access, notice.server) || session.tokenUntil <= now) continue;
      const failed = (error: unknown) => this.logger.debug(`${notice.kind} not delivered to session ${id}: ${errorMessage(error)}`);
      if (notice.kind === 'resourceUpdated') {
        if (session.ledger.has(notice.server, notice.uri)) session.server.sendResourceUpdated({ uri: notice.uri }).catch(failed);
      } else if (session.server.getClientCapabilities() !== undefined) {
        session.server.sendLoggingMessage(notice.params).catch(failed);
      }
    }
    if (notice.kind === 'resourceUpdated')
      this.targets.notifyModern((endpoint, access) => affects(endpoint, access, notice.server), { updated: notice.uri });
  }
}
