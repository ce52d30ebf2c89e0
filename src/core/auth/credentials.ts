// One remote server's OAuth credentials: its tokens and client registrations, each keyed by the
// authorization server's issuer (a client id or a token from one issuer means nothing to another).
// Kept in memory and written through to the secret store; read again at each connect, so a sign-in
// made by another process (`mcp-switchboard login`) is picked up.
import type { StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import type { JsonWebKey } from 'node:crypto';
import type { SecretStore } from './secretStore';

export interface SavedTokens {
  readonly tokens: StoredOAuthTokens;
  /** Epoch ms when they were saved; `expires_in` counts from here. */
  readonly savedAt: number;
}

export interface SavedClient {
  readonly client: StoredOAuthClientInformation;
  /** The redirect URI the client was registered with; a different one needs a new registration. */
  readonly redirectUrl?: string;
}

/** The DPoP key tokens are bound to (RFC 9449): kept, or a restart would orphan them. */
export interface SavedDpopKey {
  readonly alg: 'ES256';
  /** The private key as a JWK (`kty`, `crv`, `x`, `y`, `d`). */
  readonly jwk: JsonWebKey;
}

interface CredentialRecord {
  v: 1;
  lastIssuer?: string;
  tokens: Record<string, SavedTokens>;
  clients: Record<string, SavedClient>;
  dpop?: SavedDpopKey;
}

const KEY_PREFIX = 'oauth:';
/** A record larger than this is damaged or not ours: it is dropped, not parsed. */
const MAX_RECORD_CHARS = 256 * 1024;

/** The store key for a server: its URL without a fragment (the protected resource). */
export function credentialKey(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.hash = '';
  return `${KEY_PREFIX}${url.href}`;
}

export function isCredentialKey(key: string): boolean {
  return key.startsWith(KEY_PREFIX);
}

function emptyRecord(): CredentialRecord {
  return { v: 1, tokens: Object.create(null) as Record<string, SavedTokens>, clients: Object.create(null) as Record<string, SavedClient> };
}

function parseRecord(text: string | undefined): CredentialRecord {
  if (!text || text.length > MAX_RECORD_CHARS) return emptyRecord();
  try {
    const parsed = JSON.parse(text) as Partial<CredentialRecord>;
    const record = emptyRecord();
    if (typeof parsed.lastIssuer === 'string') record.lastIssuer = parsed.lastIssuer;
    for (const [issuer, saved] of Object.entries(parsed.tokens ?? {})) {
      if (typeof saved?.tokens?.access_token === 'string' && typeof saved.savedAt === 'number') record.tokens[issuer] = saved;
    }
    for (const [issuer, saved] of Object.entries(parsed.clients ?? {})) {
      if (typeof saved?.client?.client_id === 'string') record.clients[issuer] = saved;
    }
    const dpop = parsed.dpop;
    if (dpop?.alg === 'ES256' && typeof dpop.jwk?.d === 'string' && typeof dpop.jwk.x === 'string' && typeof dpop.jwk.y === 'string')
      record.dpop = dpop;
    return record;
  } catch {
    return emptyRecord();
  }
}

export class ServerCredentials {
  private record: CredentialRecord = emptyRecord();
  private loaded: Promise<void> | undefined;

  constructor(
    private readonly store: SecretStore,
    readonly key: string,
  ) {}

  /** Reads the store again (at each connect); later reads use memory. */
  reload(): Promise<void> {
    this.loaded = this.store.get(this.key).then((text) => void (this.record = parseRecord(text)));
    return this.loaded;
  }

  /** The next read goes to the store. */
  invalidateCache(): void {
    this.loaded = undefined;
  }

  private async current(): Promise<CredentialRecord> {
    await (this.loaded ?? this.reload());
    return this.record;
  }

  /** The tokens from `issuer`, or (no issuer) the ones saved last: what a request carries. */
  async tokens(issuer?: string): Promise<SavedTokens | undefined> {
    const record = await this.current();
    const key = issuer ?? record.lastIssuer;
    return key !== undefined && Object.hasOwn(record.tokens, key) ? record.tokens[key] : undefined;
  }

  async saveTokens(issuer: string, tokens: StoredOAuthTokens, savedAt: number): Promise<void> {
    const record = await this.current();
    record.tokens[issuer] = { tokens, savedAt };
    record.lastIssuer = issuer;
    await this.persist();
  }

  async client(issuer: string): Promise<SavedClient | undefined> {
    const record = await this.current();
    return Object.hasOwn(record.clients, issuer) ? record.clients[issuer] : undefined;
  }

  async saveClient(issuer: string, client: StoredOAuthClientInformation, redirectUrl: string | undefined): Promise<void> {
    const record = await this.current();
    record.clients[issuer] = { client, redirectUrl };
    await this.persist();
  }

  async dpopKey(): Promise<SavedDpopKey | undefined> {
    return (await this.current()).dpop;
  }

  async saveDpopKey(key: SavedDpopKey): Promise<void> {
    const record = await this.current();
    record.dpop = key;
    await this.persist();
  }

  async forgetTokens(): Promise<void> {
    const record = await this.current();
    record.tokens = Object.create(null) as Record<string, SavedTokens>;
    delete record.lastIssuer;
    await this.persist();
  }

  async forgetClients(): Promise<void> {
    const record = await this.current();
    record.clients = Object.create(null) as Record<string, SavedClient>;
    await this.persist();
  }

  async forget(): Promise<void> {
    this.record = emptyRecord();
    this.loaded = Promise.resolve();
    await this.store.delete(this.key);
  }

  private async persist(): Promise<void> {
    const { record } = this;
    if (Object.keys(record.tokens).length === 0 && Object.keys(record.clients).length === 0 && !record.dpop)
      await this.store.delete(this.key);
    else await this.store.set(this.key, JSON.stringify(record));
  }
}
