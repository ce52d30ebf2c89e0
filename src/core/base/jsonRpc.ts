// What a JSON-RPC 2.0 message looks like, checked by hand: every message of every call crosses
// this check twice (from the client, from the server), and the SDK's zod schema for it cost about
// 55 µs per call. It accepts and refuses what that schema does (test/core/base/jsonRpc.test.ts
// compares them); the params of a request and the result of a response are the SDK's to check
// against the method's own schema.
import type { JSONRPCMessage } from '@modelcontextprotocol/client';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): boolean => typeof value === 'string' || Number.isInteger(value);

/** Only these keys, as the schema is strict. */
function keysWithin(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  for (const key in value) if (!allowed.includes(key)) return false;
  return true;
}

const REQUEST_KEYS = ['jsonrpc', 'id', 'method', 'params'];
const RESULT_KEYS = ['jsonrpc', 'id', 'result'];
const ERROR_KEYS = ['jsonrpc', 'id', 'error'];

/** A request, notification, result or error response, by shape. */
export function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (!isObject(value) || value.jsonrpc !== '2.0') return false;
  if ('method' in value)
    return (
      typeof value.method === 'string' &&
      (!('id' in value) || isId(value.id)) &&
      (value.params === undefined || isObject(value.params)) &&
      keysWithin(value, REQUEST_KEYS)
    );
  if ('result' in value) return isId(value.id) && isObject(value.result) && keysWithin(value, RESULT_KEYS);
  if ('error' in value)
    return (
      (!('id' in value) || isId(value.id)) &&
      isObject(value.error) &&
      Number.isInteger(value.error.code) &&
      typeof value.error.message === 'string' &&
      keysWithin(value, ERROR_KEYS)
    );
  return false;
}

/** The request a `notifications/cancelled` names, or undefined when its params name none. */
export function cancelledRequestId(params: unknown): string | number | undefined {
  const id = isObject(params) ? params.requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
