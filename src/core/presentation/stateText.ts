// How a server's state reads in one line (tree description, status bar, doctor table). Shared so
// that every surface says the same thing.
import type { ServerState } from '../connection/state';

const MAX_MESSAGE = 120;

function firstLine(text: string): string {
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** E.g. "running · 12 tools · 84 ms", "reconnecting in 4 s (attempt 3/5)", "blocked: workspace not trusted". */
export function describeState(state: ServerState, now: number = Date.now()): string {
  switch (state.kind) {
    case 'running':
      return `running · ${plural(state.toolCount, 'tool')} · ${Math.round(state.connectMs)} ms`;
    case 'starting':
      return state.attempt ? `starting (attempt ${state.attempt}/${state.maxAttempts ?? '?'})` : 'starting…';
    case 'reconnecting': {
      const seconds = Math.max(0, Math.ceil((state.nextTryAt - now) / 1000));
      return `reconnecting in ${seconds} s (attempt ${state.attempt}/${state.maxAttempts})`;
    }
    case 'error':
      return `error: ${firstLine(state.message)}`;
    case 'disabled':
      return 'disabled';
    case 'stopped':
      return 'stopped';
    case 'invalid': {
      const first = state.diagnostics.find((diagnostic) => diagnostic.severity === 'error') ?? state.diagnostics[0];
      return first ? `invalid: ${first.path ? `${first.path}: ` : ''}${firstLine(first.message)}` : 'invalid';
    }
    case 'blocked':
      return `blocked: ${firstLine(state.detail)}`;
  }
}
