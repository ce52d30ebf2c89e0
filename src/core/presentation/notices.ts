// The one-line texts of the editor's notifications. Pure, so that they are tested in plain Node.
import type { CatalogSnapshot } from '../catalog';
import { hostOfTarget } from '../sandbox';
import type { ConnectionErrorCode, ServerState } from '../state';

export type FailureAction = 'allowSandboxHost' | 'openSettingsEntry' | 'reconnect' | 'showLogs';

/**
 * The host a failed sandboxed server's sandbox refused it, as `sandbox.network.allowedDomains` names
 * it: what *Allow … in Its Sandbox* adds.
 */
export function sandboxDeniedHost(state: ServerState): string | undefined {
  return state.kind === 'error' && state.sandboxDenied !== undefined ? hostOfTarget(state.sandboxDenied) : undefined;
}

/**
 * The buttons of a failure notice, the one that fixes the cause first: a reconnect cannot fix a
 * typo in the command, but the settings entry can (and a changed entry restarts the server).
 */
export function failureActions(code: ConnectionErrorCode, deniedHost?: string): readonly FailureAction[] {
  // The sandbox refused what the server needed: allowing that one host is the fix, in one click.
  if (deniedHost !== undefined) return ['allowSandboxHost', 'showLogs'];
  switch (code) {
    case 'ENOENT':
    case 'SPAWN_FAILED':
    case 'HTTP_ERROR':
    case 'INVALID_ARGUMENTS':
    case 'LOOP':
      return ['openSettingsEntry', 'showLogs'];
    case 'PROCESS_EXITED':
    case 'PROTOCOL_ERROR':
      // What the server said before it died (in the logs) says what to change.
      return ['showLogs', 'openSettingsEntry', 'reconnect'];
    case 'SANDBOX_UNAVAILABLE':
      // The fix is to install a package (then reconnect) or to turn the sandbox off in the entry.
      return ['reconnect', 'openSettingsEntry', 'showLogs'];
    case 'CONNECT_TIMEOUT':
    case 'CONNECT_FAILED':
    case 'CONNECTION_LOST':
    case 'REQUEST_TIMEOUT':
    case 'CANCELLED':
    case 'NOT_RUNNING':
    case 'NOT_READY':
    case 'UNKNOWN_TOOL':
    case 'SERVER_ERROR':
    case 'CLOSED':
    case 'NEEDS_SIGN_IN':
    case 'BUSY':
      return ['reconnect', 'showLogs'];
  }
}

/**
 * A failure notice says what is wrong in one short line; the details (the searched PATH, stderr)
 * are in the server's log, which the notice offers to open.
 */
export function noticeReason(message: string): string {
  const first = message.split('\n', 1)[0] ?? '';
  return /^command `.*` not found on PATH$/.test(first) ? `${first}; the folders searched are in the logs` : first;
}

/**
 * What Invalidate Tool Cache did: which servers were refetched (with their tool counts) and which
 * were only cleared, because they are not running.
 */
export function describeRefetch(snapshot: CatalogSnapshot, names: readonly string[], since = Number.POSITIVE_INFINITY): string {
  const servers = snapshot.servers.filter((server) => names.includes(server.name));
  // A lazy server that started once to list its tools again, and is idle again, was refetched too.
  const fetchedAgain = (server: (typeof servers)[number]) =>
    server.state !== 'running' && server.fetchedAt !== undefined && server.fetchedAt >= since;
  const refetched = servers.filter((server) => server.state === 'running' || fetchedAgain(server));
  const notRunning = servers.filter((server) => !refetched.includes(server));
  const parts: string[] = [];
  if (refetched.length > 0) {
    const count = (server: (typeof servers)[number]) =>
      `${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}${fetchedAgain(server) ? ', started once to list them' : ''}`;
    parts.push(`refetched ${refetched.map((server) => `${server.name} (${count(server)})`).join(', ')}`);
  }
  if (notRunning.length > 0)
    parts.push(`cleared, not running: ${notRunning.map((server) => `${server.name} (${server.state})`).join(', ')}`);
  return `MCP Switchboard: tool cache invalidated; ${parts.length > 0 ? parts.join('; ') : 'no servers'}.`;
}
