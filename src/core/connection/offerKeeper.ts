// The part of a connection that follows what a server offers besides tools: the current offer
// (kept across reconnects, like the tool list), its change events, resource subscriptions
// (counted per URI, so two clients subscribing make one upstream subscription, and replayed on
// every new session), and the server's own notifications (resource updates, log messages).
import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/client';
import { EmptyResultSchema } from '@modelcontextprotocol/core';
import { Emitter, type Event } from '../base/events';
import { deepFreeze } from '../base/freeze';
import type { Logger } from '../base/logging';
import type { Clock, TimerHandle } from '../base/clock';
import { EMPTY_OFFER, listOffer, notifiesChanges, offersSubscriptions, sameOffer, type OfferList, type ServerOffer } from './serverOffer';
import type { McpSession, OpenSessionOptions, RequestPolicy } from './session';
import { errorMessage } from '../base/errorMessage';

export type ServerNotice =
  | { readonly kind: 'resourceUpdated'; readonly server: string; readonly uri: string }
  | { readonly kind: 'log'; readonly server: string; readonly params: LoggingMessageNotification['params'] };

export interface OfferChangeEvent {
  readonly server: string;
  readonly offer: ServerOffer;
}

/** Bounds what one server can make us hold: URIs are client input, so both are capped. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 1_000;
const MAX_URI_LENGTH = 8_192;
const MAX_LOG_TEXT = 2_000;
/** A server's cache hint never makes us ask more often than this. */
const MIN_TTL_REFRESH_MS = 1_000;

/** How a server's log levels map onto ours; notice and above are worth a user's attention. */
function logLine(logger: Logger, level: LoggingLevel, text: string): void {
  if (level === 'debug') logger.debug(text);
  else if (level === 'info' || level === 'notice') logger.info(text);
  else if (level === 'warning') logger.warn(text);
  else logger.error(text);
}

function describeLogData(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data) ?? String(data);
  return text.length > MAX_LOG_TEXT ? `${text.slice(0, MAX_LOG_TEXT)}…` : text;
}

export class OfferKeeper {
  private readonly offerEmitter = new Emitter<OfferChangeEvent>();
  private readonly noticeEmitter = new Emitter<ServerNotice>();
  readonly onDidChangeOffer: Event<OfferChangeEvent> = this.offerEmitter.event;
  readonly onNotice: Event<ServerNotice> = this.noticeEmitter.event;
  private current: ServerOffer = EMPTY_OFFER;
  private readonly subscriptions = new Map<string, number>();
  /** The next refresh of lists whose `ttlMs` runs out; belongs to the session it was set for. */
  private ttlTimer: TimerHandle | undefined;

  constructor(
    private readonly server: string,
    private readonly logger: Logger,
    /** The connection's running session; events from any other are stale. */
    private readonly activeSession: () => McpSession | undefined,
    private readonly refreshPolicy: () => RequestPolicy,
    private readonly clock: Clock,
  ) {}

  /** Frozen, so that readers (the catalog, on every request) share it instead of copying it. */
  get offer(): ServerOffer {
    return this.current;
  }

  /** The session hooks that report here. */
  sessionHooks(): Pick<OpenSessionOptions, 'listOffer' | 'onOfferChanged' | 'onResourceUpdated' | 'onLogMessage'> {
    return {
      listOffer: (session, policy) => listOffer(session, policy, this.current),
      onOfferChanged: (session, list) => void this.refresh(session, list),
      onResourceUpdated: (session, uri) => {
        if (session === this.activeSession() && this.subscriptions.has(uri)) this.noticeEmitter.fire({ kind: 'resourceUpdated', server: this.server, uri });
      },
      onLogMessage: (session, params) => {
        if (session !== this.activeSession()) return;
        logLine(this.logger, params.level, `log${params.logger ? ` (${params.logger.slice(0, 80)})` : ''}: ${describeLogData(params.data)}`);
        this.noticeEmitter.fire({ kind: 'log', server: this.server, params });
      },
    };
  }

  /** A new session is running: its offer replaces ours, and our subscriptions are made on it. */
  adopt(session: McpSession): void {
    this.replace(session.offer);
    this.scheduleTtlRefresh(session);
    if (this.subscriptions.size > 0) void this.subscribeAll(session);
  }

  /** The session ended: its refresh timer goes with it. */
  detach(): void {
    if (this.ttlTimer !== undefined) this.clock.clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
  }

  /** URIs subscribed to (each counted once, however many callers asked). */
  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** Subscribes to updates of `uri` (once upstream, however many callers ask). */
  async subscribe(uri: string): Promise<void> {
    if (uri.length > MAX_URI_LENGTH) throw new Error(`resource URI longer than ${MAX_URI_LENGTH} characters`);
    const count = this.subscriptions.get(uri) ?? 0;
    if (count === 0 && this.subscriptions.size >= MAX_RESOURCE_SUBSCRIPTIONS) throw new Error(`more than ${MAX_RESOURCE_SUBSCRIPTIONS} resource subscriptions on server "${this.server}"`);
    this.subscriptions.set(uri, count + 1);
    if (count > 0) return;
    const session = this.activeSession();
    try {
      if (session) await this.sendSubscription(session, 'resources/subscribe', uri);
    } catch (error) {
      this.subscriptions.delete(uri);
      throw error;
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    const count = this.subscriptions.get(uri);
    if (count === undefined) return;
    if (count > 1) return void this.subscriptions.set(uri, count - 1);
    this.subscriptions.delete(uri);
    const session = this.activeSession();
    if (session) await this.sendSubscription(session, 'resources/unsubscribe', uri).catch((error: unknown) => this.logger.debug(`resources/unsubscribe failed: ${errorMessage(error)}`));
  }

  dispose(): void {
    this.detach();
    this.offerEmitter.dispose();
    this.noticeEmitter.dispose();
  }

  /** Lists `list` (or both) again; a failure is logged and the previous lists stay. */
  async refresh(session: McpSession, list: OfferList | 'all'): Promise<void> {
    if (session !== this.activeSession()) return;
    try {
      const offer = await listOffer(session, this.refreshPolicy(), this.current, list === 'all' ? ['resources', 'prompts'] : [list]);
      if (session !== this.activeSession()) return;
      session.offer = offer;
      this.replace(offer);
    } catch (error) {
      this.logger.warn(`listing ${list === 'all' ? 'resources and prompts' : list} again failed: ${errorMessage(error)}`);
    }
  }

  /**
   * A 2026-07-28 `ttlMs` on a list says how long it stays fresh. Lists of a server that sends no
   * change notifications for them are listed again when it runs out; 0 promises nothing.
   */
  private scheduleTtlRefresh(session: McpSession): void {
    this.detach();
    const stale = (['resources', 'prompts'] as const).filter((list) => !notifiesChanges(session.capabilities, list) && (this.current.ttlMs?.[list] ?? 0) > 0);
    if (stale.length === 0) return;
    const ttl = Math.min(...stale.map((list) => this.current.ttlMs?.[list] ?? Infinity));
    this.ttlTimer = this.clock.setTimeout(() => {
      this.ttlTimer = undefined;
      if (session !== this.activeSession()) return;
      void this.refresh(session, stale.length === 2 ? 'all' : (stale[0] as OfferList)).finally(() => {
        if (session === this.activeSession()) this.scheduleTtlRefresh(session);
      });
    }, Math.max(MIN_TTL_REFRESH_MS, ttl));
    (this.ttlTimer as { unref?: () => void } | undefined)?.unref?.();
  }

  private replace(offer: ServerOffer): void {
    for (const problem of offer.problems) {
      if (!this.current.problems.includes(problem)) this.logger.warn(problem);
    }
    if (sameOffer(offer, this.current)) return;
    this.current = deepFreeze(offer);
    this.offerEmitter.fire({ server: this.server, offer: this.current });
  }

  private async subscribeAll(session: McpSession): Promise<void> {
    if (session.era === 'modern') return session.setResourceSubscriptions([...this.subscriptions.keys()]);
    for (const uri of this.subscriptions.keys()) {
      await this.sendSubscription(session, 'resources/subscribe', uri).catch((error: unknown) => this.logger.warn(`resources/subscribe ${uri.slice(0, 200)} failed: ${errorMessage(error)}`));
    }
  }

  /** 2026-07-28 subscriptions ride on the listen stream; 2025 ones are requests of their own. */
  private async sendSubscription(session: McpSession, method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): Promise<void> {
    if (!offersSubscriptions(session.capabilities)) return;
    if (session.era === 'modern') return session.setResourceSubscriptions([...this.subscriptions.keys()]);
    await session.requestRaw(method, { uri }, EmptyResultSchema, this.refreshPolicy(), { retried: false });
  }
}
