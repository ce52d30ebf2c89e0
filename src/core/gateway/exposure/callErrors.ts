// The edge where the core's one error (state/errors.ts) becomes the JSON-RPC error the gateway's
// client receives: which code (its mistake, try again, or the server's trouble) and which words.
// Tool failures the upstream reported as results (`isError`) never get here.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describeFilterRule } from '../../catalog';
import { isSwitchboardError, stripRpcPrefix, type SwitchboardError } from '../../connection';
import type { CallTarget } from '../http';
import { errorMessage } from '../../base/errorMessage';

/** The JSON-RPC code servers have used for a timeout since the 2025 SDKs (v2 keeps it local). */
const REQUEST_TIMEOUT_CODE = -32001;

/**
 * A protocol error with the plain text: servers on the 2025 SDKs prefix "MCP error <code>: ",
 * and across a gateway hop the prefix piled up ("MCP error -32603: MCP error -32603: ...").
 */
export function rpcError(code: number, message: string, data?: unknown): ProtocolError {
  return new ProtocolError(code, stripRpcPrefix(message), data);
}

/** The JSON-RPC code for each of the core's codes. */
function rpcCodeOf(error: SwitchboardError): number {
  switch (error.code) {
    // The client's mistake: nothing was sent, and the same request will not do better.
    case 'UNKNOWN_TOOL':
    case 'UNKNOWN_SERVER':
    case 'INVALID_ARGUMENTS':
    case 'TOOL_FILTERED':
    case 'TOOL_DISABLED':
    case 'SERVER_HELD_BACK':
      return ProtocolErrorCode.InvalidParams;
    // The upstream's own error keeps its code (and data), so that the client can act on it.
    case 'SERVER_ERROR':
      return error.rpcCode ?? ProtocolErrorCode.InternalError;
    // Timed out, or not ready by the request's deadline: the client may try again.
    case 'REQUEST_TIMEOUT':
    case 'NOT_READY':
      return REQUEST_TIMEOUT_CODE;
    // The server is unavailable, for one reason or another.
    case 'ENOENT':
    case 'SANDBOX_UNAVAILABLE':
    case 'SPAWN_FAILED':
    case 'PROCESS_EXITED':
    case 'CONNECT_TIMEOUT':
    case 'CONNECT_FAILED':
    case 'HTTP_ERROR':
    case 'LOOP':
    case 'PROTOCOL_ERROR':
    case 'CONNECTION_LOST':
    case 'CANCELLED':
    case 'NOT_RUNNING':
    case 'CLOSED':
    case 'NEEDS_SIGN_IN':
    case 'BUSY':
    case 'SERVER_UNAVAILABLE':
      return ProtocolErrorCode.InternalError;
  }
}

/**
 * What went wrong, for any forwarded request: the error's own words, "server x is unavailable" when
 * the server could not be reached, or the server's name before what it did wrong (an answer the
 * protocol does not allow: it was reached, and answered).
 */
export function upstreamError(error: unknown, server: string): ProtocolError {
  const message = errorMessage(error);
  if (!isSwitchboardError(error)) return rpcError(ProtocolErrorCode.InternalError, `Server "${server}" is unavailable: ${message}`);
  const code = rpcCodeOf(error);
  const unavailable = code === ProtocolErrorCode.InternalError && error.code !== 'SERVER_ERROR';
  const words = !unavailable
    ? message
    : error.code === 'PROTOCOL_ERROR'
      ? `Server "${server}": ${message}`
      : `Server "${server}" is unavailable: ${message}`;
  return rpcError(code, words, error.code === 'SERVER_ERROR' ? error.data : undefined);
}

/** The refusal of a qualified name on the aggregated endpoint that names no tool the client may call. */
export function unknownQualifiedName(requested: string): string {
  return `Unknown tool "${requested}": no server offers a tool with this qualified name`;
}

/**
 * The JSON-RPC error for a tool call, in the words of the endpoint's client: `requested` is the
 * name it used (qualified on the aggregated endpoint).
 */
export function toProtocolError(error: unknown, target: CallTarget, requested: string = target.name): ProtocolError {
  if (error instanceof ProtocolError) return rpcError(error.code, error.message, error.data);
  if (!isSwitchboardError(error)) {
    return rpcError(
      ProtocolErrorCode.InternalError,
      `Calling tool "${target.name}" of server "${target.server}" failed: ${errorMessage(error)}`,
    );
  }
  switch (error.code) {
    case 'UNKNOWN_TOOL':
    case 'UNKNOWN_SERVER':
      // The same words whether the tool does not exist or the caller may not see it (a team policy).
      return rpcError(
        rpcCodeOf(error),
        target.qualified ? unknownQualifiedName(requested) : `Unknown tool "${requested}": ${error.message}`,
      );
    case 'TOOL_FILTERED':
    case 'TOOL_DISABLED': {
      const server = error.server ?? target.server;
      const reason = error.rule ? describeFilterRule(error.rule, server) : 'filtered out';
      return rpcError(rpcCodeOf(error), `Tool "${requested}" of server "${server}" is not exposed: ${reason}`);
    }
    case 'SERVER_HELD_BACK':
      return rpcError(rpcCodeOf(error), `Tool "${requested}" is unavailable: ${error.message}`);
    default:
      return upstreamError(error, error.server ?? target.server);
  }
}

/** The JSON-RPC error for a request about resources or prompts (`what` names it). */
export function offerError(error: unknown, server: string, what: string): ProtocolError {
  if (error instanceof ProtocolError) return rpcError(error.code, error.message, error.data);
  // Refused here (unknown, held back, hidden): the client's mistake, in the gateway's words. An
  // upstream's own error, -32602 included, passes as upstreamError passes it: its code and data.
  if (isSwitchboardError(error) && error.code !== 'SERVER_ERROR' && rpcCodeOf(error) === ProtocolErrorCode.InvalidParams)
    return rpcError(ProtocolErrorCode.InvalidParams, `${what}: ${error.message}`);
  return upstreamError(error, server);
}
