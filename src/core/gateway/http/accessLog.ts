// The gateway's access log: one entry per HTTP request once its response has ended (serve
// --access-log, and the metrics counted from it). What the client sent is cut short; nothing
// secret is in it.
import type http from 'node:http';

/** One request, as an access log has it. Text from the client is cut short; nothing secret is in it. */
export interface AccessEntry {
  readonly method: string;
  /** The path without its query. */
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  /** The peer, or the client a trusted proxy names. */
  readonly client: string | undefined;
  /** The JSON-RPC method of the body (`tools/call echo` with the tool), `batch of N`, or absent. */
  readonly rpc?: string;
}

export class AccessLog {
  /** What each request's body asked, once read. */
  private readonly rpcOf = new WeakMap<http.IncomingMessage, string>();

  constructor(
    private readonly onAccess: (entry: AccessEntry) => void,
    /** The peer, or the client a trusted proxy names. */
    private readonly clientOf: (req: http.IncomingMessage) => string | undefined,
    private readonly failed: (error: unknown) => void = () => undefined,
  ) {}

  /** The request's body was read: what it asked goes in its entry. */
  asked(req: http.IncomingMessage, body: unknown): void {
    this.rpcOf.set(req, describeRpc(body));
  }

  /** Follows a request until its response has ended, then tells its entry. */
  follow(req: http.IncomingMessage, res: http.ServerResponse): void {
    const started = performance.now();
    res.once('close', () => {
      try {
        const rpc = this.rpcOf.get(req);
        this.onAccess({
          method: (req.method ?? '?').slice(0, 16),
          path: (req.url ?? '').split('?', 1)[0]?.slice(0, 200) ?? '',
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
          client: this.clientOf(req),
          rpc,
        });
      } catch (error) {
        this.failed(error);
      }
    });
  }
}

/** `tools/call <tool>`, another method, `batch of N`, or `?`: at most 120 characters. */
function describeRpc(body: unknown): string {
  if (Array.isArray(body)) return `batch of ${body.length}`;
  if (typeof body !== 'object' || body === null) return '?';
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string') return 'response';
  const tool = method === 'tools/call' && typeof params?.name === 'string' ? ` ${params.name}` : '';
  return `${method}${tool}`.slice(0, 120);
}
