// Why a connection failed, as a code: carried by connection errors and by the error state.
export type ConnectionErrorCode =
  /** The stdio command (or its working directory) does not exist. */
  | 'ENOENT'
  /** The entry asks for a sandbox that cannot run here; the server is not started without it. */
  | 'SANDBOX_UNAVAILABLE'
  /** The process could not be spawned for another reason (EACCES, ...). */
  | 'SPAWN_FAILED'
  /** The stdio process exited before the connection was established. */
  | 'PROCESS_EXITED'
  /** Spawn + initialize + first tools/list took longer than `timeouts.connectMs`. */
  | 'CONNECT_TIMEOUT'
  /** The server could not be reached (connection refused, DNS, TLS, ...). */
  | 'CONNECT_FAILED'
  /** The server answered HTTP with an error status. */
  | 'HTTP_ERROR'
  /** The server is this Switchboard's own gateway: it refused a request from itself (base/selfLoop.ts). */
  | 'LOOP'
  /** The server spoke something other than MCP (garbage on stdout, unsupported protocol version). */
  | 'PROTOCOL_ERROR'
  /** An established connection went away. */
  | 'CONNECTION_LOST'
  /** A request took longer than `timeouts.requestMs` (or the progress-extended maximum). */
  | 'REQUEST_TIMEOUT'
  /** The caller's AbortSignal fired. */
  | 'CANCELLED'
  /** A request was made while the server is stopped, failed or disabled. */
  | 'NOT_RUNNING'
  /**
   * The server was still starting (or reconnecting) when the request's wait for it ran out: one
   * deadline per request (`timeouts.requestMs` from when it arrived), whichever layer waits.
   * Nothing was sent.
   */
  | 'NOT_READY'
  /** Arguments do not satisfy the tool's input schema; nothing was sent. */
  | 'INVALID_ARGUMENTS'
  /** The tool is not in the server's last tool list; nothing was sent. */
  | 'UNKNOWN_TOOL'
  /** The server answered a request with a JSON-RPC error (see `rpcCode`). */
  | 'SERVER_ERROR'
  /** The connection was stopped or disposed while the operation was pending. */
  | 'CLOSED'
  /** The server asks for OAuth and there are no usable credentials (see `signIn`). */
  | 'NEEDS_SIGN_IN'
  /** The server runs as many tasks as Switchboard allows at once; nothing was sent. */
  | 'BUSY';
