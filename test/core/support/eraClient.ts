// An SDK client of a gateway endpoint in either protocol era, with the bearer token, that says
// when it can receive change notifications.
import { Client, StreamableHTTPClientTransport, type FetchLike, type SubscriptionFilter } from '@modelcontextprotocol/client';
import type { Cleanup } from './cleanup';

export type Era = 'legacy' | 'modern';
export const MODERN_VERSION = '2026-07-28';

export interface EraClient {
  readonly client: Client;
  /** The 2025 GET stream is open, or (2026-07-28) the listen stream for `filter` is. */
  readonly listening: Promise<void>;
}

/** The 2025 handshake, or pinned to 2026-07-28 with a `subscriptions/listen` stream for `filter`. */
export async function connectInEra(
  cleanup: Cleanup,
  gateway: { readonly token: string },
  url: string,
  era: Era,
  filter: SubscriptionFilter,
): Promise<EraClient> {
  let opened: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (opened = resolve));
  // 2025 era: notifications come on the GET stream the SDK opens after initialize.
  const watchingFetch: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET') === 'GET' && response.ok) opened();
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
    fetch: watchingFetch,
  });
  const client = new Client(
    { name: `era-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {},
  );
  await client.connect(transport);
  cleanup.add(() => client.close());
  if (era === 'modern') {
    const subscription = await client.listen(filter);
    cleanup.add(() => subscription.close());
    opened();
  }
  return { client, listening };
}
