// The body of a POST to the gateway, read before the SDK sees it: bounded in size, and screened so
// that a malformed tools/call gets a -32602 that names the field (the SDK would answer with its
// schema validator's raw dump).
import type http from 'node:http';
import { readJsonBody } from '../../base/boundedBody';

/** A JSON-RPC message to a gateway is a request or a notification; tool arguments are the bulk. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why the params of a tools/call are malformed, naming the field, or undefined when they are fine. */
function toolCallProblem(params: unknown): string | undefined {
  if (!isPlainObject(params)) return `params: expected an object, got ${describe(params)}`;
  if (typeof params.name !== 'string') return `name: expected a string, got ${describe(params.name)}`;
  if (params.arguments !== undefined && !isPlainObject(params.arguments))
    return `arguments: expected an object, got ${describe(params.arguments)}`;
  if (params._meta !== undefined && !isPlainObject(params._meta)) return `_meta: expected an object, got ${describe(params._meta)}`;
  return undefined;
}

/** A JSON-RPC error response for a malformed request the gateway answers itself, or undefined. */
export function screenRequest(body: unknown): { readonly id: string | number; readonly message: string } | undefined {
  if (!isPlainObject(body) || body.method !== 'tools/call') return undefined;
  const id = body.id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const problem = toolCallProblem(body.params);
  return problem === undefined ? undefined : { id, message: `Invalid params for tools/call: ${problem}` };
}

/** A JSON-RPC error body, which SDK clients surface as the error message. */
export function replyError(
  res: http.ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Reads a POST body for the SDK, answering itself what the SDK must not see: an oversized body
 * (413), one that is not JSON (-32700), a malformed tools/call (-32602). `parsed` is told every body
 * that parsed (the access log keeps what was asked).
 */
export async function takeJsonBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  parsed?: (body: unknown) => void,
): Promise<{ read: true; value: unknown } | { read: false }> {
  const body = await readJsonBody(req, MAX_REQUEST_BYTES);
  if (body.kind === 'tooLarge') {
    replyError(res, 413, `Request body larger than ${MAX_REQUEST_BYTES} bytes`, { Connection: 'close' });
    return { read: false };
  }
  if (body.kind === 'notJson') {
    replyError(res, 400, `Parse error: ${body.message}`, {}, -32700);
    return { read: false };
  }
  parsed?.(body.body);
  const malformed = screenRequest(body.body);
  if (malformed) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: malformed.id, error: { code: -32602, message: malformed.message } }));
    return { read: false };
  }
  return { read: true, value: body.body };
}
