// Requests as they go over the wire, for tests that need what an SDK client will not send: a
// 2026-07-28 request with its `_meta` envelope (declaring the tasks extension), and a 2025
// session's request by its id.
export const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

export interface WireAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** A JSON-RPC POST with the token and the Accept a streamable HTTP client sends. */
function post(url: string, token: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The answer from a JSON body or from the SSE stream's first data line. */
async function answerOf(response: Response): Promise<WireAnswer> {
  const text = await response.text();
  const line = text.split('\n').find((entry) => entry.startsWith('data:'));
  return JSON.parse(line ? line.slice(5) : text) as WireAnswer;
}

/** One 2026-07-28 request of a client that declared the tasks extension. */
export async function modernRequest(
  url: string,
  token: string,
  id: number,
  method: string,
  params: Record<string, unknown>,
): Promise<WireAnswer> {
  const response = await post(
    url,
    token,
    { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method, 'Mcp-Name': String(params.name ?? params.taskId) },
    {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    },
  );
  return answerOf(response);
}

/** A request of a 2025 session, by its id; the HTTP status (404 for a session the gateway does not know). */
export async function sessionRequest(
  url: string,
  token: string,
  session: string,
  id: number,
  method: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const response = await post(
    url,
    token,
    { 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25', ...headers },
    { jsonrpc: '2.0', id, method },
  );
  await response.text();
  return response.status;
}

/** A 2025 session opened with a raw initialize (no `initialized` sent); its id. */
export async function openSession(url: string, token: string, client = 'wire'): Promise<string> {
  const response = await post(
    url,
    token,
    {},
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: client, version: '1' } },
    },
  );
  await response.text();
  return response.headers.get('mcp-session-id') ?? '';
}
