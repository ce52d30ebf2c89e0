// How a server's state reads in one line (tree description, status bar, doctor table). Shared so
// that every surface says the same thing.
import type { ServerState } from '../state';

/** How much of a message the one-line state text keeps. */
export const STATE_MESSAGE_MAX = 120;

function firstLine(text: string): string {
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  return line.length > STATE_MESSAGE_MAX ? `${line.slice(0, STATE_MESSAGE_MAX - 1)}…` : line;
}

/** `1 tool`, `12 tools`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function describeWait(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return seconds < 90 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

/** The diagnostic an invalid server is named by: its first error, else its first warning. */
export function firstProblem<T extends { readonly severity: string }>(diagnostics: readonly T[]): T | undefined {
  return diagnostics.find((diagnostic) => diagnostic.severity === 'error') ?? diagnostics[0];
}

/**
 * A server's tools as every surface counts them: `17 tools` when chat is offered them all, else
 * `1 of 17 offered` (the others filtered out or switched off), and what the budget left for
 * search (`9 of 17 offered, the rest by search`). One phrase for the row, its tooltip, the status
 * bar and the server's actions, so that they never disagree.
 */
export function toolsText(total: number, offered: number | undefined = total, bySearch = 0): string {
  if (offered === total) return plural(total, 'tool');
  const found = bySearch <= 0 ? '' : bySearch === total - offered ? ', the rest by search' : `, ${bySearch} by search`;
  return `${offered} of ${total} offered${found}`;
}

/** What else is known of a server when its state does not say: its tools (an idle one's cached ones), and how many chat is offered. */
export interface StateContext {
  readonly tools?: number;
  readonly offered?: number;
  /** Of those not offered, how many only the budget left out: search finds them. */
  readonly bySearch?: number;
}

/** E.g. "running · 12 tools · 84 ms", "ready · 12 tools cached · starts when used", "reconnecting in 4 s (attempt 3/5)". */
export function describeState(state: ServerState, now: number = Date.now(), context: StateContext = {}): string {
  switch (state.kind) {
    case 'idle': {
      const tools = context.tools ?? 0;
      const known = tools > 0 ? ` · ${toolsText(tools, context.offered, context.bySearch)} cached` : '';
      // "ready", as the row says: chat has its tools, and the editor's own list says Running.
      return state.reason === 'unused' ? `ready${known} · stopped while unused` : `ready${known} · starts when used`;
    }
    case 'running': {
      const quarantined = state.quarantinedTools?.length ?? 0;
      return `running · ${toolsText(context.tools ?? state.toolCount, context.offered, context.bySearch)}${quarantined > 0 ? ` (${quarantined} quarantined)` : ''} · ${Math.round(state.connectMs)} ms`;
    }
    case 'starting':
      if (!state.attempt) return 'starting…';
      return state.maxAttempts !== undefined && state.attempt > state.maxAttempts
        ? 'starting (slow retry)'
        : `starting (attempt ${state.attempt}/${state.maxAttempts ?? '?'})`;
    case 'reconnecting': {
      const seconds = Math.max(0, Math.ceil((state.nextTryAt - now) / 1000));
      return `reconnecting in ${seconds} s (attempt ${state.attempt}/${state.maxAttempts})`;
    }
    case 'error':
      return `error: ${firstLine(state.message)}${state.nextTryAt === undefined ? '' : ` · next try in ${describeWait(state.nextTryAt - now)}`}`;
    case 'disabled':
      return 'disabled';
    case 'stopped':
      return 'stopped';
    case 'invalid': {
      const first = firstProblem(state.diagnostics);
      return first ? `invalid: ${first.path ? `${first.path}: ` : ''}${firstLine(first.message)}` : 'invalid';
    }
    case 'blocked':
      return `blocked: ${firstLine(state.detail)}`;
    case 'needsSignIn':
      return state.reason === 'scope'
        ? `needs sign-in · more access asked (${firstLine(state.scope ?? '')})`
        : state.reason === 'refused'
          ? 'needs sign-in · the token was refused'
          : 'needs sign-in';
  }
}
