// How a client's request reaches a server: it waits for a server that is starting or
// reconnecting (until the request's readyBy, or requestMs from now), fails at once with the reason
// for one that is not running, and is sent again once, on the next session, only when it provably
// never reached the server.
import type { Clock } from '../base/clock';
import { waitUntil } from '../base/waitUntil';
import { errorMessage } from '../base/errorMessage';
import type { Event } from '../base/events';
import type { Logger } from '../base/logging';
import { isConnecting, isSettled, type ServerState, type ServerStateChangeEvent } from '../state';
import { SwitchboardError, isConnectionFailure, notReadyError, type ConnectionFailure, type RequestPolicy, type RetryBudget } from './link';
import type { McpSession } from './session';

/** A progress notification extends a call's deadline, but never past this many × requestMs. */
export const MAX_TOTAL_TIMEOUT_FACTOR = 10;

/** Where sessions come from, and where their loss is reported: the attempt runner, which owns the state. */
export interface SessionSource {
  readonly currentState: ServerState;
  /** The running session, if any. */
  readonly session: McpSession | undefined;
  readonly onDidChangeState: Event<ServerStateChangeEvent>;
  /** A request found the session gone: reconnect. */
  sessionLost(session: McpSession, failure: ConnectionFailure): void;
  /** A request was refused for want of a sign-in: wait for one. */
  signInNeeded(session: McpSession, failure: ConnectionFailure): void;
}

/** What the gate is given: the sessions, and the few facts and actions of its server it needs. */
export interface GateContext {
  readonly name: string;
  readonly requestMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly sessions: SessionSource;
  readonly disposed: () => boolean;
  /** Starts an idle server: a request (`why`) needs it. */
  readonly wake: (why?: string) => void;
}

/** What a request brings to its wait: its abort signal, and when to stop waiting (CallerOptions.readyBy). */
export interface ReadyOptions {
  readonly signal?: AbortSignal | undefined;
  readonly readyBy?: number | undefined;
}

export type SessionOperation<T> = (session: McpSession, policy: RequestPolicy, budget: RetryBudget) => Promise<T>;

export class RequestGate {
  constructor(private readonly connection: GateContext) {}

  async withSession<T>(what: string, options: ReadyOptions, operation: SessionOperation<T>): Promise<T> {
    const { connection } = this;
    const { signal } = options;
    if (connection.disposed()) throw new SwitchboardError('CLOSED', `${what}: the connection to \`${connection.name}\` was disposed`);
    const requestMs = connection.requestMs;
    const policy: RequestPolicy = { timeoutMs: requestMs, maxTotalMs: requestMs * MAX_TOTAL_TIMEOUT_FACTOR, signal };
    const budget: RetryBudget = { retried: false };
    // One deadline for every wait of this request, the retry's included.
    const readyBy = options.readyBy ?? (requestMs > 0 ? connection.clock.now() + requestMs : undefined);
    let session = await this.waitForSession(what, signal, readyBy);
    try {
      return await operation(session, policy, budget);
    } catch (error) {
      const failure = this.noteFailure(session, error);
      // A sign-in is never waited for: only a person can give one.
      if (!failure.notSent || budget.retried || failure.code === 'NEEDS_SIGN_IN') throw failure;
      budget.retried = true;
      connection.logger.info(`${what} could not be sent (${failure.message}); retrying once the server is back`);
      session = await this.waitForSession(what, signal, readyBy);
      try {
        return await operation(session, policy, budget);
      } catch (retryError) {
        throw this.noteFailure(session, retryError);
      }
    }
  }

  /** The reason a request cannot be served in the current state. */
  notRunning(what: string): SwitchboardError {
    const { connection } = this;
    const state = connection.sessions.currentState;
    if (state.kind === 'stopped' && connection.disposed())
      return new SwitchboardError('CLOSED', `${what}: the connection to \`${connection.name}\` was disposed`);
    if (state.kind === 'needsSignIn') {
      // Said so that a person reading it (in chat, in a terminal) knows what to do.
      return new SwitchboardError(
        'NEEDS_SIGN_IN',
        `${what}: server \`${connection.name}\` needs a sign-in (${state.detail}): use Sign In on its row in the editor, or run \`mcp-switchboard login ${connection.name}\``,
        {
          notSent: true,
          signIn: { reason: state.reason, ...(state.scope ? { scope: state.scope } : {}) },
        },
      );
    }
    const detail = state.kind === 'error' ? `: ${state.message}` : '';
    return new SwitchboardError('NOT_RUNNING', `${what}: server \`${connection.name}\` is ${state.kind}${detail}`);
  }

  /** Translates and, if the failure means the connection is gone, starts reconnecting. */
  private noteFailure(session: McpSession, error: unknown): ConnectionFailure {
    const failure = isConnectionFailure(error) ? error : new SwitchboardError('PROTOCOL_ERROR', errorMessage(error), { cause: error });
    // Not a lost connection: retrying cannot help until somebody signs in.
    if (failure.code === 'NEEDS_SIGN_IN') this.connection.sessions.signInNeeded(session, failure);
    else if (failure.notSent || failure.code === 'CONNECTION_LOST') this.connection.sessions.sessionLost(session, failure);
    return failure;
  }

  /** The running session, waiting for a starting/reconnecting server until `readyBy`. */
  private waitForSession(what: string, signal: AbortSignal | undefined, readyBy: number | undefined): Promise<McpSession> {
    const { connection } = this;
    const cancelled = () => new SwitchboardError('CANCELLED', `${what} was cancelled`);
    if (signal?.aborted) return Promise.reject(cancelled());
    const { sessions } = connection;
    const ready = sessions.currentState.kind === 'running' ? sessions.session : undefined;
    if (ready) return Promise.resolve(ready);
    connection.wake(what);
    if (!isConnecting(sessions.currentState.kind)) return Promise.reject(this.notRunning(what));
    return waitUntil<McpSession>({
      on: (listener) => sessions.onDidChangeState(listener),
      check: () => {
        const { currentState: state, session } = sessions;
        if (state.kind === 'running' && session) return { done: session };
        return isSettled(state) ? { failed: this.notRunning(what) } : undefined;
      },
      clock: connection.clock,
      deadline:
        readyBy === undefined
          ? undefined
          : { at: readyBy, verdict: () => ({ failed: notReadyError(connection.name, connection.requestMs, what) }) },
      signal,
      aborted: () => ({ failed: cancelled() }),
    });
  }
}
