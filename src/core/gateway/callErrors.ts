// Turns whatever the tool source threw for a forwarded call into the JSON-RPC error the gateway's
// client receives. Tool failures the upstream reported as results (`isError`) never get here.
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isCatalogError } from '../catalog/errors';
import { isConnectionError } from '../connection/errors';
import type { CallTarget } from './exposure';

export function toMcpError(error: unknown, target: CallTarget): McpError {
  if (error instanceof McpError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const unavailable = (): McpError => new McpError(ErrorCode.InternalError, `Server "${target.server}" is unavailable: ${message}`);
  if (isCatalogError(error)) {
    // The catalog refuses what the snapshot the gateway checked still allowed (a race with a change).
    return error.code === 'SERVER_UNAVAILABLE' || error.code === 'CANCELLED' ? unavailable() : new McpError(ErrorCode.InvalidParams, message);
  }
  if (!isConnectionError(error)) {
    return new McpError(ErrorCode.InternalError, `Calling tool "${target.name}" of server "${target.server}" failed: ${message}`);
  }
  switch (error.code) {
    case 'UNKNOWN_TOOL':
    case 'INVALID_ARGUMENTS':
      return new McpError(ErrorCode.InvalidParams, message);
    case 'SERVER_ERROR':
      // The upstream's own JSON-RPC error: keep its code and data so the client can act on them.
      return new McpError(error.rpcCode ?? ErrorCode.InternalError, message, error.data);
    case 'REQUEST_TIMEOUT':
      return new McpError(ErrorCode.RequestTimeout, message);
    default:
      return unavailable();
  }
}
