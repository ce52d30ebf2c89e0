// A server's state in a few words, for the Servers view's row. The sidebar is about 300 px wide by
// default: with the name and two hover buttons that leaves some 21 characters, so the row says
// what kind of trouble there is and the tooltip (describeState and more) says the rest. The icon
// already says error, blocked or needs sign-in, so the words name the cause.
import type { ConnectionErrorCode, BlockedReason, ServerState, SignInReason } from '../state';
import { failureActions, sandboxDeniedHost } from './notices';
import { firstProblem, plural, toolsText } from './stateText';

/** The longest description a row should need for a state (checked by the tests for every kind). */
export const ROW_TEXT_BUDGET = 21;

const ERROR_WORDS: Record<ConnectionErrorCode, string> = {
  ENOENT: 'command not found',
  SANDBOX_UNAVAILABLE: 'no sandbox here',
  SPAWN_FAILED: 'cannot start it',
  PROCESS_EXITED: 'exited',
  CONNECT_TIMEOUT: 'timed out',
  CONNECT_FAILED: 'unreachable',
  HTTP_ERROR: 'HTTP error',
  LOOP: 'this is Switchboard',
  PROTOCOL_ERROR: 'not MCP',
  CONNECTION_LOST: 'connection lost',
  REQUEST_TIMEOUT: 'request timed out',
  CANCELLED: 'cancelled',
  NOT_RUNNING: 'not running',
  NOT_READY: 'not ready in time',
  INVALID_ARGUMENTS: 'bad arguments',
  UNKNOWN_TOOL: 'unknown tool',
  SERVER_ERROR: 'server error',
  CLOSED: 'closed',
  NEEDS_SIGN_IN: 'needs sign-in',
  BUSY: 'too many tasks',
};

/** Every error code (the Record above lists each once), for tests of the budget. */
export const ROW_ERROR_CODES = Object.keys(ERROR_WORDS) as ConnectionErrorCode[];

const BLOCKED_WORDS: Record<BlockedReason, string> = {
  untrusted: 'untrusted workspace',
  consentPending: 'waiting for consent',
  consentDenied: 'denied by you',
  needsInput: 'needs input',
};

const SIGN_IN_WORDS: Record<SignInReason, string> = {
  signInRequired: 'needs sign-in',
  scope: 'needs more access',
  refused: 'sign-in refused',
};

/** The few words that tell this failure from the others: the exit code, the HTTP status. */
function errorWords(code: ConnectionErrorCode, message: string): string {
  if (code === 'PROCESS_EXITED') {
    const exit = /\b(?:code|signal) (\w+)/.exec(message);
    return exit ? `exited (${exit[1]})` : 'exited';
  }
  if (code === 'HTTP_ERROR') {
    const status = /HTTP (\d{3})\b/.exec(message);
    return status ? `HTTP ${status[1]}` : 'HTTP error';
  }
  if (code === 'ENOENT' && /working directory|folder/i.test(message)) return 'folder not found';
  return ERROR_WORDS[code];
}

/** The last part of a diagnostic's path: `servers.x.args[2]` reads as `args[2]`. */
function lastPathPart(path: string): string {
  const part = path.split('.').pop() ?? path;
  return part.length > 11 ? `${part.slice(0, 10)}…` : part;
}

export interface RowContext {
  /** The tools the row knows of (an idle server's cached ones). */
  readonly tools?: number;
  /**
   * How many of them chat is offered, after every filter and the switch: what the row counts, so
   * that it says what chat gets (the tool rows under it name why the others are not).
   */
  readonly offered?: number;
  /** Of those not offered, how many only the budget left out: search finds them. */
  readonly bySearch?: number;
  readonly tasks?: number;
  /** How many windows and agents use the machine host's copy of the server (this one among them); absent: not shared. */
  readonly shared?: number;
}

/**
 * ` · shared ×3`: the machine host runs it once for this window and the others (the tooltip says so
 * in words). Short: the row fits the default sidebar. Nothing while this window is its only user:
 * with sharing on, every user-level server runs in the host, and `×1` on each row says nothing.
 */
function sharedText(clients: number | undefined): string {
  return clients === undefined || clients < 2 ? '' : ` · shared ×${clients}`;
}

/**
 * E.g. "running · 12 tools", "ready · 12 tools", "exited (1)", "command not found", "denied by you".
 * The first word is always the state, in one vocabulary everywhere: a lazy server not started yet
 * is "ready" (its cached tools are what chat has, and the editor's own list says Running), and a
 * sandboxed or just-restarted server still reads "running" (its icon and tooltip say the rest).
 * While tasks run, they replace the tool count: "running · 2 tasks" (the rows under it list them).
 */
export function describeRow(state: ServerState, now: number, context: RowContext = {}): string {
  switch (state.kind) {
    case 'idle':
      return (
        (context.tools ? `ready · ${toolsText(context.tools, context.offered, context.bySearch)}` : 'ready') + sharedText(context.shared)
      );
    case 'running': {
      const quarantined = state.quarantinedTools?.length ?? 0;
      if (context.tasks) return `running · ${plural(context.tasks, 'task')}${sharedText(context.shared)}`;
      return `running · ${toolsText(context.tools ?? state.toolCount, context.offered, context.bySearch)}${quarantined > 0 ? `, ${quarantined} bad` : ''}${sharedText(context.shared)}`;
    }
    case 'starting':
      if (!state.attempt) return 'starting…';
      return state.maxAttempts !== undefined && state.attempt > state.maxAttempts
        ? 'starting (slow retry)'
        : `starting (${state.attempt}/${state.maxAttempts ?? '?'})`;
    case 'reconnecting':
      return `retry in ${Math.max(0, Math.ceil((state.nextTryAt - now) / 1000))} s (${state.attempt}/${state.maxAttempts})`;
    case 'error':
      // The cause, when its sandbox refused a connection the server needed.
      return state.sandboxDenied !== undefined ? 'network denied' : errorWords(state.code, state.message);
    case 'disabled':
      return 'disabled';
    case 'stopped':
      return 'stopped';
    case 'invalid': {
      const first = firstProblem(state.diagnostics);
      return first?.path ? `invalid: ${lastPathPart(first.path)}` : 'invalid settings';
    }
    case 'blocked':
      return BLOCKED_WORDS[state.reason];
    case 'needsSignIn':
      return SIGN_IN_WORDS[state.reason];
  }
}

/** The one action a row offers on hover (beside Show Logs): the one that most likely fixes it. */
export type RowAction = 'allow' | 'allowSandboxHost' | 'signIn' | 'start' | 'reconnect' | 'openSettingsEntry' | 'enable';

export function rowPrimaryAction(state: ServerState): RowAction | undefined {
  switch (state.kind) {
    case 'idle':
    case 'stopped':
      return 'start';
    case 'running':
      // Nothing to fix: Show Logs alone on hover leaves the row its words (Reconnect is in its menu).
      return undefined;
    case 'starting':
    case 'reconnecting':
      return 'reconnect';
    case 'error':
      // The sandbox refused what the server needed: allowing that host is the fix.
      if (sandboxDeniedHost(state) !== undefined) return 'allowSandboxHost';
      // A typo in the command or a wrong URL is fixed in the entry; a reconnect would fail again.
      return failureActions(state.code)[0] === 'openSettingsEntry' ? 'openSettingsEntry' : 'reconnect';
    case 'disabled':
      return 'enable';
    case 'invalid':
      return 'openSettingsEntry';
    case 'blocked':
      if (state.reason === 'untrusted') return undefined;
      return state.reason === 'needsInput' ? 'start' : 'allow';
    case 'needsSignIn':
      return 'signIn';
  }
}
