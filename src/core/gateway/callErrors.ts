// Turns whatever the tool source threw for a forwarded call into the JSON-RPC error the gateway's
// client receives. Tool failures the upstream reported as results (`isError`) never get here.
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isCatalogError } from '../catalog/errors';
import { isConnectionError, stripRpcPrefix } from '../connection/errors';
import type { CallTarget } from './exposure';

/**
 * An McpError whose message is the plain text. McpError prefixes "MCP error <code>: ", the SDK
 * sends that message on the wire, and the client's McpError prefixes it again; across a gateway
 * hop the prefix piled up ("MCP error -32603: MCP error -32603: ...").
 */
export function rpcError(code: number, message: string, data?: unknown): McpError {
  const error = new McpError(code, message, data);
  Object.defineProperty(error, 'message', { value: stripRpcPrefix(message), enumerable: false, configurable: true, writable: true });
  return error;
}

export function toMcpError(error: unknown, target: CallTarget): McpError {
  if (error instanceof McpError) return rpcError(error.code, error.message, error.data);
  const message = error instanceof Error ? error.message : String(error);
  const unavailable = (): McpError => rpcError(ErrorCode.InternalError, `Server "${target.server}" is unavailable: ${message}`);
  if (isCatalogError(error)) {
    // The catalog refuses what the snapshot the gateway checked still allowed (a race with a change).
    return error.code === 'SERVER_UNAVAILABLE' || error.code === 'CANCELLED' ? unavailable() : rpcError(ErrorCode.InvalidParams, message);
  }
  if (!isConnectionError(error)) {
    return rpcError(ErrorCode.InternalError, `Calling tool "${target.name}" of server "${target.server}" failed: ${message}`);
  }
  switch (error.code) {
    case 'UNKNOWN_TOOL':
    case 'INVALID_ARGUMENTS':
      return rpcError(ErrorCode.InvalidParams, message);
    case 'SERVER_ERROR':
      // The upstream's own JSON-RPC error: keep its code and data so the client can act on them.
      return rpcError(error.rpcCode ?? ErrorCode.InternalError, message, error.data);
    case 'REQUEST_TIMEOUT':
      return rpcError(ErrorCode.RequestTimeout, message);
    default:
      return unavailable();
  }
}
