// Turns whatever the tool source threw for a forwarded call into the JSON-RPC error the gateway's
// client receives. Tool failures the upstream reported as results (`isError`) never get here.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isCatalogError } from '../catalog/errors';
import { isConnectionError, stripRpcPrefix } from '../connection/errors';
import type { CallTarget } from './exposure';

/** The JSON-RPC code servers have used for a timeout since the 2025 SDKs (v2 keeps it local). */
const REQUEST_TIMEOUT_CODE = -32001;

/**
 * A protocol error with the plain text: servers on the 2025 SDKs prefix "MCP error <code>: ",
 * and across a gateway hop the prefix piled up ("MCP error -32603: MCP error -32603: ...").
 */
export function rpcError(code: number, message: string, data?: unknown): ProtocolError {
  return new ProtocolError(code, stripRpcPrefix(message), data);
}

export function toProtocolError(error: unknown, target: CallTarget): ProtocolError {
  if (error instanceof ProtocolError) return rpcError(error.code, error.message, error.data);
  const message = error instanceof Error ? error.message : String(error);
  const unavailable = (): ProtocolError => rpcError(ProtocolErrorCode.InternalError, `Server "${target.server}" is unavailable: ${message}`);
  if (isCatalogError(error)) {
    // The catalog refuses what the snapshot the gateway checked still allowed (a race with a change).
    return error.code === 'SERVER_UNAVAILABLE' || error.code === 'CANCELLED' ? unavailable() : rpcError(ProtocolErrorCode.InvalidParams, message);
  }
  if (!isConnectionError(error)) {
    return rpcError(ProtocolErrorCode.InternalError, `Calling tool "${target.name}" of server "${target.server}" failed: ${message}`);
  }
  switch (error.code) {
    case 'UNKNOWN_TOOL':
    case 'INVALID_ARGUMENTS':
      return rpcError(ProtocolErrorCode.InvalidParams, message);
    case 'SERVER_ERROR':
      // The upstream's own JSON-RPC error: keep its code and data so the client can act on them.
      return rpcError(error.rpcCode ?? ProtocolErrorCode.InternalError, message, error.data);
    case 'REQUEST_TIMEOUT':
      return rpcError(REQUEST_TIMEOUT_CODE, message);
    default:
      return unavailable();
  }
}
