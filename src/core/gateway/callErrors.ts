// Turns whatever the tool source threw for a forwarded call into the JSON-RPC error the gateway's
// client receives. Tool failures the upstream reported as results (`isError`) never get here.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isCatalogError, type CatalogError, describeFilterRule } from '../catalog';
import { isConnectionError, stripRpcPrefix } from '../connection';
import type { CallTarget } from './endpoint';
import { errorMessage } from '../base/errorMessage';

/** The JSON-RPC code servers have used for a timeout since the 2025 SDKs (v2 keeps it local). */
const REQUEST_TIMEOUT_CODE = -32001;

/**
 * A protocol error with the plain text: servers on the 2025 SDKs prefix "MCP error <code>: ",
 * and across a gateway hop the prefix piled up ("MCP error -32603: MCP error -32603: ...").
 */
export function rpcError(code: number, message: string, data?: unknown): ProtocolError {
  return new ProtocolError(code, stripRpcPrefix(message), data);
}

/**
 * The JSON-RPC error for a call the catalog refused or the upstream failed, in the words of the
 * endpoint's client: `requested` is the name it used (qualified on the aggregated endpoint).
 */
export function toProtocolError(error: unknown, target: CallTarget, requested: string = target.name): ProtocolError {
  if (error instanceof ProtocolError) return rpcError(error.code, error.message, error.data);
  const message = errorMessage(error);
  const unavailable = (): ProtocolError =>
    rpcError(ProtocolErrorCode.InternalError, `Server "${target.server}" is unavailable: ${message}`);
  if (isCatalogError(error)) return catalogRefusal(error, target, requested) ?? unavailable();
  if (!isConnectionError(error)) {
    return rpcError(ProtocolErrorCode.InternalError, `Calling tool "${target.name}" of server "${target.server}" failed: ${message}`);
  }
  if (error.code === 'UNKNOWN_TOOL' || error.code === 'INVALID_ARGUMENTS') return rpcError(ProtocolErrorCode.InvalidParams, message);
  return upstreamError(error, target.server);
}

/**
 * What went wrong upstream, for any forwarded request: the upstream's own JSON-RPC error keeps its
 * code and data (so the client can act on them), a timeout is -32001, anything else means the
 * server is unavailable.
 */
export function upstreamError(error: unknown, server: string): ProtocolError {
  const message = errorMessage(error);
  if (isConnectionError(error, 'SERVER_ERROR')) return rpcError(error.rpcCode ?? ProtocolErrorCode.InternalError, message, error.data);
  // A request that timed out, or a server that was not ready by the call's deadline: the client may try again.
  if (isConnectionError(error, 'REQUEST_TIMEOUT') || isConnectionError(error, 'NOT_READY')) return rpcError(REQUEST_TIMEOUT_CODE, message);
  return rpcError(ProtocolErrorCode.InternalError, `Server "${server}" is unavailable: ${message}`);
}

/** The catalog's refusals are the client's mistake (InvalidParams); a server that is down is not. */
function catalogRefusal(error: CatalogError, target: CallTarget, requested: string): ProtocolError | undefined {
  switch (error.code) {
    case 'UNKNOWN_TOOL':
      return rpcError(ProtocolErrorCode.InvalidParams, `Unknown tool "${requested}": ${error.message}`);
    case 'TOOL_FILTERED':
    case 'TOOL_DISABLED': {
      const reason = error.rule ? describeFilterRule(error.rule, target.server) : 'filtered out';
      return rpcError(ProtocolErrorCode.InvalidParams, `Tool "${requested}" of server "${target.server}" is not exposed: ${reason}`);
    }
    case 'SERVER_HELD_BACK':
      return rpcError(ProtocolErrorCode.InvalidParams, `Tool "${requested}" is unavailable: ${error.message}`);
    default:
      return undefined;
  }
}
