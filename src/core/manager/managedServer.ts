// One configured server as the manager holds it, and the one place that says what state the rest
// of the product sees for it: the connection's own state, with the manager's overlay on top —
// invalid (the entry does not parse), blocked (trust, consent, inputs), and starting while it
// waits for a slot in the concurrency limit.
import type { Disposable } from '../base/events';
import type { RunningTask, ServerConnection } from '../connection';
import type { Tool } from '@modelcontextprotocol/client';
import type { ConfigDiagnostic, InvalidServer, ServerDefinition, ServerSource } from '../config';
import { frozenState, type BlockedReason, type ServerState } from '../state';
import { deepFreeze } from '../base/freeze';

const STOPPED: ServerState = frozenState({ kind: 'stopped' });
const DISABLED: ServerState = frozenState({ kind: 'disabled' });

export type ConfiguredServer = ServerDefinition | InvalidServer;

/** Why the editor will not let a server start (trust, consent, inputs). */
export interface ServerBlock {
  readonly reason: BlockedReason;
  readonly detail: string;
}

export function isInvalid(server: ConfiguredServer): server is InvalidServer {
  return !('transport' in server);
}

export function isEnabled(server: ConfiguredServer): boolean {
  return !isInvalid(server) && server.enabled;
}

export function isLazy(server: ConfiguredServer): boolean {
  return !isInvalid(server) && server.lifecycle.start === 'lazy';
}

/** The block an entry starts with: a missing input blocks it whatever the editor says. */
export function initialBlock(configured: ConfiguredServer, block: ServerBlock | undefined): ServerBlock | undefined {
  if (isInvalid(configured) && configured.needsInput && configured.needsInput.length > 0)
    return { reason: 'needsInput', detail: `needs input: ${configured.needsInput.join(', ')}` };
  return block;
}

/** What the manager knows about one server: built on each read from the owners' frozen values, never copied. */
export interface ServerView {
  readonly name: string;
  readonly source: ServerSource;
  readonly state: ServerState;
  /** The last tool list the server reported (empty until it has run). */
  readonly tools: readonly Tool[];
  /** Validation warnings and errors for this entry. */
  readonly diagnostics: readonly ConfigDiagnostic[];
  readonly definition?: ServerDefinition;
  /** The last stderr lines of a stdio server. */
  readonly stderrTail: readonly string[];
  /** Tasks the server runs for callers that made plain calls (connection/tasks/taskCalls.ts). */
  readonly tasks: readonly RunningTask[];
}

export class ManagedServer {
  /** Set by the editor (trust, consent, inputs); wins over everything but invalid. */
  blocked: ServerBlock | undefined;
  /** Waiting for a free slot in the concurrency limit; reported as starting. */
  queuedSince: number | undefined;
  /** `starting` was reported for the queue: the connection's own stopped → starting is not news. */
  startingReported = false;
  readonly subscriptions: Disposable[] = [];
  private entry: ConfiguredServer;

  constructor(
    readonly name: string,
    configured: ConfiguredServer,
    readonly hash: string | undefined,
    readonly connection: ServerConnection | undefined,
    blocked: ServerBlock | undefined,
  ) {
    this.entry = deepFreeze(configured);
    this.blocked = initialBlock(configured, blocked);
  }

  /** The entry as configured; frozen, so every view shares it. */
  get configured(): ConfiguredServer {
    return this.entry;
  }

  set configured(configured: ConfiguredServer) {
    this.entry = deepFreeze(configured);
  }

  /** The state everyone else sees. */
  get state(): ServerState {
    const { configured, blocked } = this;
    if (isInvalid(configured) && !blocked) return frozenState({ kind: 'invalid', diagnostics: configured.diagnostics });
    if (blocked) return frozenState({ kind: 'blocked', reason: blocked.reason, detail: blocked.detail });
    if (!isEnabled(configured)) return DISABLED;
    if (this.queuedSince !== undefined) return frozenState({ kind: 'starting', since: this.queuedSince });
    return this.connection?.state ?? STOPPED;
  }

  /** Whether the manager may start it: a connection, not blocked, enabled. */
  get startable(): boolean {
    return this.connection !== undefined && !this.blocked && isEnabled(this.configured);
  }

  /**
   * Whether a state event of its connection is news to the product: not while the overlay hides
   * it (blocked, queued), and not the `starting` already reported for the queue.
   */
  passesConnectionEvent(state: ServerState): boolean {
    if (this.blocked || this.queuedSince !== undefined) return false;
    const repeat = this.startingReported && state.kind === 'starting';
    this.startingReported = false;
    return !repeat;
  }

  /**
   * What the manager knows about it, sharing the frozen entry, state and tools. The stderr tail and
   * the tasks are read when asked: most readers (the catalog, on a call's path) never ask.
   */
  view(): ServerView {
    const { configured, connection } = this;
    return {
      name: this.name,
      source: configured.source,
      state: this.state,
      tools: connection?.tools ?? [],
      diagnostics: isInvalid(configured) ? configured.diagnostics : [],
      definition: isInvalid(configured) ? undefined : configured,
      get stderrTail() {
        return connection?.stderrTail() ?? [];
      },
      get tasks() {
        return connection?.tasks.list() ?? [];
      },
    };
  }
}
