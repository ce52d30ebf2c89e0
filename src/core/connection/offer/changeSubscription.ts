// In the 2026-07-28 era change notifications come only on a `subscriptions/listen` stream, which
// also carries the resources whose updates the server should report. A stream the server ends is
// opened again; one that keeps failing is given up, with a warning (lists are then refreshed on
// reconnect and on demand only).
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { errorMessage } from '../../base/errorMessage';
import type { Logger } from '../../base/logging';
import { notifiesChanges } from './serverOffer';

/** A change subscription that keeps dropping is given up after this many tries in a row. */
const MAX_LISTEN_TRIES = 3;

export interface ListeningSession {
  readonly client: Client;
  readonly capabilities: Record<string, unknown>;
  readonly isClosing: boolean;
}

export class ChangeSubscription {
  private subscription: McpSubscription | undefined;
  private resources: readonly string[] = [];
  private failures = 0;

  constructor(
    private readonly session: ListeningSession,
    private readonly logger: Logger,
  ) {}

  listen(): void {
    const { session } = this;
    if (session.isClosing) return;
    const capabilities = session.capabilities;
    const filter = {
      ...(notifiesChanges(capabilities, 'tools') ? { toolsListChanged: true } : {}),
      ...(notifiesChanges(capabilities, 'resources') ? { resourcesListChanged: true } : {}),
      ...(notifiesChanges(capabilities, 'prompts') ? { promptsListChanged: true } : {}),
      ...(this.resources.length > 0 ? { resourceSubscriptions: [...this.resources] } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    const client = session.client;
    const stale = () => session.isClosing || session.client !== client;
    client
      .listen(filter)
      .then((subscription) => {
        if (stale()) return void subscription.close();
        this.subscription = subscription;
        this.failures = 0;
        void subscription.closed.then((how) => {
          if (how === 'local' || stale()) return;
          this.logger.debug(`the change subscription ended (${how}); listening again`);
          this.listen();
        });
      })
      .catch((error: unknown) => {
        if (stale()) return;
        this.failures += 1;
        if (this.failures >= MAX_LISTEN_TRIES)
          return void this.logger.warn(`cannot subscribe to tool list changes: ${errorMessage(error)}`);
        this.listen();
      });
  }

  /** A new set of resources replaces the subscription (the old one is closed once the new one is open). */
  setResources(uris: readonly string[]): void {
    this.resources = [...uris];
    const previous = this.subscription;
    this.subscription = undefined;
    void previous?.close().catch(() => undefined);
    this.failures = 0;
    this.listen();
  }

  async close(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.close().catch(() => undefined);
  }
}
