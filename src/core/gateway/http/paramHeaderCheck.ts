// SEP-2243 (2026-07-28): a client mirrors the arguments a tool marks with `x-mcp-header` into
// `Mcp-Param-<Name>` headers, and a server MUST refuse a call whose headers and body disagree
// (HTTP 400, -32020 HeaderMismatch). The SDK checks this only for its McpServer's own tools; the
// gateway serves its upstreams' tools as they listed them, so it checks them here, with the same
// rules: a value in the body needs its header; a `=?base64?…?=` header is decoded, and refused
// when it is not canonical Base64 of UTF-8; numbers compare as numbers. The call then goes
// upstream, where Switchboard's own client mirrors the headers again (session.ts).
import type http from 'node:http';
import type { ParamHeader } from '../../connection';

export const HEADER_MISMATCH = -32020;

const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
const BASE64_CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

export interface HeaderMismatch {
  readonly message: string;
  readonly data: { readonly mismatch: { readonly header: string; readonly body: string } };
}

function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)))
    return String(value);
  return undefined;
}

/** The header's value as sent, decoded; undefined when its Base64 form is broken. */
function decodeHeader(value: string): string | undefined {
  const trimmed = value.trim();
  if (!(trimmed.startsWith(BASE64_PREFIX) && trimmed.endsWith(BASE64_SUFFIX))) return trimmed;
  const payload = trimmed.slice(BASE64_PREFIX.length, trimmed.length - BASE64_SUFFIX.length);
  if (!BASE64_CANONICAL.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The first disagreement between a call's headers and its arguments, or undefined. */
export function paramHeaderMismatch(
  declarations: readonly ParamHeader[],
  args: unknown,
  headers: http.IncomingHttpHeaders,
): HeaderMismatch | undefined {
  for (const declaration of declarations) {
    const name = `Mcp-Param-${declaration.header}`;
    const fromBody = valueAt(args, declaration.path);
    const bodyText = fromBody === null || fromBody === undefined ? undefined : asHeaderText(fromBody);
    if (bodyText === undefined) continue;
    const where = `${declaration.path.join('.')}=${JSON.stringify(fromBody).slice(0, 200)}`;
    const sent = headers[name.toLowerCase()];
    const raw = Array.isArray(sent) ? sent.join(', ') : sent;
    if (raw === undefined) return mismatch(name, `the body carries ${where} but the ${name} header is absent`);
    const decoded = decodeHeader(raw);
    if (decoded === undefined) return mismatch(name, `the ${name} header carries an invalid Base64 value`);
    const numeric = declaration.type === 'integer' && typeof fromBody === 'number' && DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== fromBody : decoded !== bodyText) {
      return mismatch(name, `the ${name} header decodes to ${JSON.stringify(decoded).slice(0, 200)} but the body carries ${where}`);
    }
  }
  return undefined;
}

function mismatch(header: string, body: string): HeaderMismatch {
  return { message: `Bad Request: the request headers and body disagree: ${body}`, data: { mismatch: { header, body } } };
}
