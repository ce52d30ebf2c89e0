// Clients a session renewal replaced. The old session is gone on the server, so its client is
// closed without a DELETE; but only once its requests in flight have their answers (a late 404
// among them retries on the new session).
import type { Client } from '@modelcontextprotocol/client';

export class RetiredClients {
  /** Requests in flight per client. */
  private readonly pending = new Map<Client, number>();
  private readonly retired = new Set<Client>();

  /** A request is sent on `client`. */
  begin(client: Client): void {
    this.pending.set(client, (this.pending.get(client) ?? 0) + 1);
  }

  /** A request on `client` settled; a retired client with none left is closed. */
  settled(client: Client): void {
    const left = (this.pending.get(client) ?? 1) - 1;
    if (left > 0) return void this.pending.set(client, left);
    this.pending.delete(client);
    if (this.retired.delete(client)) void client.close().catch(() => undefined);
  }

  retire(client: Client): void {
    if (this.pending.has(client)) this.retired.add(client);
    else void client.close().catch(() => undefined);
  }

  /** The session closes: every retired client goes now. */
  closeAll(): void {
    for (const client of this.retired) void client.close().catch(() => undefined);
    this.retired.clear();
  }
}
