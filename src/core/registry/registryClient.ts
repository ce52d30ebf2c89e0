// The MCP Registry's v0.1 read API (the official registry and enterprise registries that implement
// it): search with cursor pagination, and a server's latest version. A registry is outside input:
// every answer is bounded in time and size, and a server.json that is not usable is reported by name
// instead of failing the whole page.
import { BodyTooLargeError, readBoundedBody } from '../base/boundedBody';
import { describeProblem, serverJsonSchema, serverListSchema, type ServerJson } from './serverJson';

export const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';
export const REGISTRY_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const PAGE_SIZE = 30;

/** Errors with a code, so callers say what happened without parsing messages. */
export class RegistryError extends Error {
  constructor(
    readonly code: 'UNREACHABLE' | 'HTTP_ERROR' | 'BAD_RESPONSE' | 'NOT_FOUND' | 'TIMEOUT',
    message: string,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

export interface RegistryServer {
  readonly server: ServerJson;
  /** `io.modelcontextprotocol.registry/official` and the like, as the registry sent them. */
  readonly meta: Readonly<Record<string, unknown>>;
}

export interface SearchPage {
  readonly servers: readonly RegistryServer[];
  /** Entries of the page that are not valid server.json, each with its name (if any) and the problem. */
  readonly skipped: readonly string[];
  readonly nextCursor?: string;
}

export type Fetch = (url: string, init: { signal: AbortSignal; headers: Record<string, string> }) => Promise<Response>;

export class RegistryClient {
  private readonly base: string;

  constructor(
    baseUrl: string = DEFAULT_REGISTRY_URL,
    private readonly fetchImpl: Fetch = fetch,
    private readonly timeoutMs = REGISTRY_TIMEOUT_MS,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  get url(): string {
    return this.base;
  }

  /** One page of the latest versions of the servers whose name matches `text`. */
  async search(text: string, cursor?: string, signal?: AbortSignal): Promise<SearchPage> {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE), version: 'latest' });
    if (text.trim()) query.set('search', text.trim());
    if (cursor) query.set('cursor', cursor);
    const body = await this.get(`/v0.1/servers?${query}`, signal);
    const parsed = serverListSchema.safeParse(body);
    if (!parsed.success)
      throw new RegistryError('BAD_RESPONSE', `${this.base} did not answer with a server list (${describeProblem(parsed.error)})`);
    const servers: RegistryServer[] = [];
    const skipped: string[] = [];
    for (const item of parsed.data.servers) {
      const server = serverJsonSchema.safeParse(item.server);
      if (server.success) servers.push({ server: server.data, meta: item._meta ?? {} });
      else skipped.push(`${nameOf(item.server)}: ${describeProblem(server.error)}`);
    }
    const nextCursor = parsed.data.metadata?.nextCursor ?? parsed.data.metadata?.next_cursor;
    return { servers, skipped, ...(nextCursor ? { nextCursor } : {}) };
  }

  /** The latest version of one server, by its registry name (`io.github.user/weather`). */
  async latest(name: string, signal?: AbortSignal): Promise<RegistryServer> {
    const body = await this.get(`/v0.1/servers/${encodeURIComponent(name)}/versions/latest`, signal);
    const item =
      body !== null && typeof body === 'object' && 'server' in body
        ? (body as { server: unknown; _meta?: Record<string, unknown> })
        : { server: body };
    const server = serverJsonSchema.safeParse(item.server);
    if (!server.success)
      throw new RegistryError('BAD_RESPONSE', `the registry's server.json for ${name} is not usable: ${describeProblem(server.error)}`);
    // A registry (or whatever stands in its place) must not answer one name with another server.
    if (server.data.name !== name)
      throw new RegistryError(
        'BAD_RESPONSE',
        `asked for ${name}, the registry at ${this.base} answered with ${server.data.name}: not used`,
      );
    return { server: server.data, meta: item._meta ?? {} };
  }

  private async get(path: string, outer?: AbortSignal): Promise<unknown> {
    const url = `${this.base}${path}`;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
    let response: Response;
    try {
      response = await this.fetchImpl(url, { signal, headers: { accept: 'application/json' } });
    } catch (error) {
      if (timeout.aborted) throw new RegistryError('TIMEOUT', `${this.base} did not answer within ${this.timeoutMs / 1000} s`);
      throw new RegistryError('UNREACHABLE', `cannot reach the registry at ${this.base}: ${causeOf(error)}`);
    }
    if (response.status === 404) throw new RegistryError('NOT_FOUND', `${url} is not in the registry (404)`);
    if (!response.ok) throw new RegistryError('HTTP_ERROR', `the registry at ${this.base} answered HTTP ${response.status}`);
    let bytes: string;
    try {
      bytes = await readBoundedBody(response, MAX_RESPONSE_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        throw new RegistryError('BAD_RESPONSE', `the registry's answer is over ${MAX_RESPONSE_BYTES} bytes`);
      // The deadline covers the body too: a registry that sends a byte every few seconds is as late as a silent one.
      if (timeout.aborted) throw new RegistryError('TIMEOUT', `${this.base} did not send its answer within ${this.timeoutMs / 1000} s`);
      if (outer?.aborted) throw error;
      throw new RegistryError('UNREACHABLE', `the registry at ${this.base} broke off its answer: ${causeOf(error)}`);
    }
    try {
      return JSON.parse(bytes) as unknown;
    } catch {
      throw new RegistryError('BAD_RESPONSE', `the registry at ${this.base} answered with something that is not JSON`);
    }
  }
}

function nameOf(server: unknown): string {
  return server !== null && typeof server === 'object' && typeof (server as { name?: unknown }).name === 'string'
    ? (server as { name: string }).name
    : '(no name)';
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
