// Resource subscriptions of one server, counted per URI: two clients subscribing make one upstream
// subscription, and the last unsubscribe ends it. They are made again on every new session. URIs
// are client input, so their number and length are bounded.
import { EmptyResultSchema } from '@modelcontextprotocol/core';
import { errorMessage } from '../../base/errorMessage';
import type { Logger } from '../../base/logging';
import { offersSubscriptions, type OfferSession } from './serverOffer';
import type { RequestPolicy } from '../link';

export const MAX_RESOURCE_SUBSCRIPTIONS = 1_000;
const MAX_URI_LENGTH = 8_192;

export class ResourceSubscriptions {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly server: string,
    private readonly logger: Logger,
    /** The connection's running session, if any. */
    private readonly activeSession: () => OfferSession | undefined,
    private readonly policy: () => RequestPolicy,
  ) {}

  /** URIs subscribed to (each counted once, however many callers asked). */
  get size(): number {
    return this.counts.size;
  }

  has(uri: string): boolean {
    return this.counts.has(uri);
  }

  /** Subscribes to updates of `uri` (once upstream, however many callers ask). */
  async subscribe(uri: string): Promise<void> {
    if (uri.length > MAX_URI_LENGTH) throw new Error(`resource URI longer than ${MAX_URI_LENGTH} characters`);
    const count = this.counts.get(uri) ?? 0;
    if (count === 0 && this.counts.size >= MAX_RESOURCE_SUBSCRIPTIONS)
      throw new Error(`more than ${MAX_RESOURCE_SUBSCRIPTIONS} resource subscriptions on server "${this.server}"`);
    this.counts.set(uri, count + 1);
    if (count > 0) return;
    const session = this.activeSession();
    try {
      if (session) await this.send(session, 'resources/subscribe', uri);
    } catch (error) {
      this.counts.delete(uri);
      throw error;
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    const count = this.counts.get(uri);
    if (count === undefined) return;
    if (count > 1) return void this.counts.set(uri, count - 1);
    this.counts.delete(uri);
    const session = this.activeSession();
    if (session)
      await this.send(session, 'resources/unsubscribe', uri).catch((error: unknown) =>
        this.logger.debug(`resources/unsubscribe failed: ${errorMessage(error)}`),
      );
  }

  /** A new session: every subscription is made on it. */
  async renewOn(session: OfferSession): Promise<void> {
    if (this.counts.size === 0) return;
    if (session.era === 'modern') return session.setResourceSubscriptions([...this.counts.keys()]);
    for (const uri of this.counts.keys()) {
      await this.send(session, 'resources/subscribe', uri).catch((error: unknown) =>
        this.logger.warn(`resources/subscribe ${uri.slice(0, 200)} failed: ${errorMessage(error)}`),
      );
    }
  }

  /** 2026-07-28 subscriptions ride on the listen stream; 2025 ones are requests of their own. */
  private async send(session: OfferSession, method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): Promise<void> {
    if (!offersSubscriptions(session.capabilities)) return;
    if (session.era === 'modern') return session.setResourceSubscriptions([...this.counts.keys()]);
    await session.requestRaw(method, { uri }, EmptyResultSchema, this.policy(), { retried: false });
  }
}
