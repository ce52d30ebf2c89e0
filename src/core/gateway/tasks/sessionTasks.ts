// The tasks one 2025 session of the gateway created with task-augmented `tools/call` (2025-11-25
// tasks): the gateway is their receiver. Each task runs the same call a plain request would
// (through the catalog's gate), in the background; the client polls it, fetches its result and can
// cancel it. Task ids are random and kept per session, so a client sees only its own.
//
// What the task's upstream asks meanwhile (elicitation, sampling) goes to the client on a request
// of its own about this task: a `tasks/result` it is waiting on, or a `tasks/get` it sends while
// the task reads `input_required` (the editor polls with `tasks/get` there). The task reads
// `input_required` from the moment something is asked until the client answered it.
//
// Bounded: at most MAX_RUNNING unfinished tasks and MAX_KEPT in all per session (the oldest
// finished one makes room), finished results up to MAX_KEPT_RESULT_CHARS, each task deleted when
// its ttl (from creation, at most MAX_TTL_MS) runs out, and every unfinished one cancelled when
// the session closes.
import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type Task } from '@modelcontextprotocol/server';
import type { Clock, TimerHandle } from '../../base/clock';
import { errorMessage } from '../../base/errorMessage';
import { Emitter, type Event } from '../../base/events';
import { TaskInputs } from './taskInputs';
import { isTaskOver } from '../../connection';

export type TaskStatus = Task['status'];

export const MAX_RUNNING = 16;
export const MAX_KEPT = 64;
export const MAX_KEPT_RESULT_CHARS = 16 * 1024 * 1024;
export const DEFAULT_TTL_MS = 10 * 60_000;
export const MAX_TTL_MS = 60 * 60_000;
/** How often the client is told to poll: the editor waits this long between `tasks/get`s. */
export const POLL_INTERVAL_MS = 500;
const PAGE_SIZE = 50;
const MAX_MESSAGE_CHARS = 500;

/** How a task ended, as `tasks/result` returns it: the call's result or its JSON-RPC error. */
export type TaskOutcome = { readonly result: CallToolResult } | { readonly error: ProtocolError };

/** What a task's work gets: when to stop, where its statuses go, and how it asks the client. */
export interface TaskWork<C> {
  readonly taskId: string;
  readonly signal: AbortSignal;
  report(message: string): void;
  /** Sends what the upstream asks on the client's next request about this task; reads input_required meanwhile. */
  ask<T>(send: (channel: C) => Promise<T>): Promise<T>;
  /** Asks a 2026-07-28 client `request` under `key` (tasks/get shows it); resolves with its tasks/update answer. */
  input(key: string, request: Readonly<Record<string, unknown>>): Promise<unknown>;
}

interface Entry<C> {
  view: Task;
  /** The client it was started for, where the store has several (TaskRules.perOwner). */
  readonly owner: string;
  outcome?: TaskOutcome;
  outcomeChars: number;
  readonly controller: AbortController;
  readonly expiry: TimerHandle;
  /** Asks waiting for a client request to go out on. */
  readonly waiting: Array<(channel: C) => void>;
  /** Asks sent and not yet answered. */
  open: number;
  /** Fires on anything a waiting request may care about: an ask, an answer, a status, the end. */
  readonly pulse: Emitter<void>;
  /** Keyed requests for a 2026-07-28 client (tasks/get shows them, tasks/update answers). */
  readonly inputs: TaskInputs;
}

/** How a store's tasks behave: per 2025 session, or the gateway's for 2026-07-28 clients. */
export interface TaskRules {
  /** 2025-11-25: a tool result with isError is a failed task; 2026-07-28: a completed one. */
  readonly toolErrorFails: boolean;
  readonly maxRunning: number;
  readonly maxKept: number;
  /**
   * Where one store serves several clients (the gateway's, for 2026-07-28 clients): what one of
   * them may hold, so that one client's load neither takes every slot nor pushes out another's results.
   */
  readonly perOwner?: { readonly maxRunning: number; readonly maxKept: number };
  /** Who the bound is for, in the refusal: "this session", "the gateway". */
  readonly holder: string;
}

export const SESSION_RULES: TaskRules = { toolErrorFails: true, maxRunning: MAX_RUNNING, maxKept: MAX_KEPT, holder: 'This session' };

/** A task as the 2026-07-28 tasks/get shows it: the task, how it ended, what it asks. */
export interface TaskDetail {
  readonly task: Task;
  readonly outcome?: TaskOutcome;
  readonly inputRequests: Record<string, unknown>;
}

export class SessionTasks<C> {
  private readonly entries = new Map<string, Entry<C>>();
  private readonly changeEmitter = new Emitter<Task>();
  /** A task's status or message changed: the session tells its client (notifications/tasks/status). */
  readonly onDidChange: Event<Task> = this.changeEmitter.event;
  private readonly finishEmitter = new Emitter<Task>();
  /** A task ended, its outcome known (a team gateway keeps it for the other replicas). */
  readonly onDidFinish: Event<Task> = this.finishEmitter.event;
  private disposed = false;

  /** @param newId a task's id (a team gateway's replicas mark theirs: replicas.ts). */
  constructor(
    private readonly clock: Clock,
    private readonly rules: TaskRules = SESSION_RULES,
    private readonly newId: () => string = randomUUID,
  ) {}

  /** Creates a task running `run` for `owner`; throws when the session (or that owner) runs its maximum. */
  start(requestedTtl: number | undefined, run: (work: TaskWork<C>) => Promise<CallToolResult>, owner = ''): Task {
    if (this.disposed) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'The gateway is closing this session');
    const { maxRunning, holder, toolErrorFails, perOwner } = this.rules;
    if (perOwner && this.running(owner) >= perOwner.maxRunning) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `This client is running ${perOwner.maxRunning} tasks, the most the gateway runs at once for one client; try again when one ends`,
      );
    }
    if (this.running() >= maxRunning) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `${holder} is running ${maxRunning} tasks, the most the gateway runs at once for it; try again when one ends`,
      );
    }
    this.makeRoom(owner);
    const ttl = Math.min(MAX_TTL_MS, Math.max(1_000, Math.floor(requestedTtl ?? DEFAULT_TTL_MS)));
    const taskId = this.newId();
    const now = new Date(this.clock.now()).toISOString();
    const entry: Entry<C> = {
      owner,
      view: { taskId, status: 'working', createdAt: now, lastUpdatedAt: now, ttl, pollInterval: POLL_INTERVAL_MS },
      outcomeChars: 0,
      controller: new AbortController(),
      expiry: this.clock.setTimeout(() => this.expire(taskId), ttl),
      waiting: [],
      open: 0,
      pulse: new Emitter<void>(),
      inputs: new TaskInputs(() => {
        this.settleStatus(entry);
        entry.pulse.fire();
      }),
    };
    this.entries.set(taskId, entry);
    const work: TaskWork<C> = {
      taskId,
      signal: entry.controller.signal,
      report: (message) => this.setStatus(entry, entry.view.status, message),
      ask: (send) => this.ask(entry, send),
      input: (key, request) => entry.inputs.ask(key, request, entry.controller.signal),
    };
    // A synchronous throw fails the task too, never the request that created it.
    new Promise<CallToolResult>((resolve) => resolve(run(work))).then(
      (result) => {
        const failed = toolErrorFails && result.isError === true;
        this.finish(entry, failed ? 'failed' : 'completed', { result }, failed ? firstText(result) : undefined);
      },
      (error: unknown) => {
        // The work throws the JSON-RPC error the call would have returned (taskHandlers.ts).
        const failure = error instanceof ProtocolError ? error : new ProtocolError(ProtocolErrorCode.InternalError, errorMessage(error));
        this.finish(entry, 'failed', { error: failure }, failure.message);
      },
    );
    return entry.view;
  }

  /** The task as `tasks/get` shows it; a tasks/get while something waits to be asked carries the ask. */
  async get(taskId: string, channel: C, signal: AbortSignal): Promise<Task> {
    const entry = this.find(taskId);
    if (entry.waiting.length > 0) await this.carry(entry, channel, signal);
    return entry.view;
  }

  /** The task, how it ended and what it asks, as the 2026-07-28 tasks/get shows them. */
  detail(taskId: string): TaskDetail {
    const entry = this.find(taskId);
    return { task: entry.view, outcome: entry.outcome, inputRequests: entry.inputs.requests() };
  }

  /** A 2026-07-28 client's answers (tasks/update); answers to keys not outstanding are ignored. */
  update(taskId: string, responses: Readonly<Record<string, unknown>>): void {
    this.find(taskId).inputs.answer(responses);
  }

  /** Waits until the task ends (carrying what it asks meanwhile), and returns how it ended. */
  async result(taskId: string, channel: C, signal: AbortSignal): Promise<TaskOutcome> {
    const entry = this.find(taskId);
    while (!entry.outcome) {
      if (entry.waiting.length > 0) await this.carry(entry, channel, signal);
      else await nextPulse(entry, signal);
      if (signal.aborted) throw new ProtocolError(ProtocolErrorCode.InternalError, 'tasks/result was cancelled');
    }
    return entry.outcome;
  }

  list(cursor: string | undefined): { tasks: Task[]; nextCursor?: string } {
    const all = [...this.entries.values()].map((entry) => entry.view);
    const start = cursor === undefined ? 0 : all.findIndex((task) => task.taskId === cursor);
    if (start < 0) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown cursor for tasks/list');
    const page = all.slice(start, start + PAGE_SIZE);
    const next = all[start + PAGE_SIZE];
    return { tasks: page, ...(next ? { nextCursor: next.taskId } : {}) };
  }

  cancel(taskId: string): Task {
    const entry = this.find(taskId);
    if (isTaskOver(entry.view.status))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task ${taskId}: it is already ${entry.view.status}`);
    this.finish(
      entry,
      'cancelled',
      { error: new ProtocolError(ProtocolErrorCode.InternalError, `Task ${taskId} was cancelled`) },
      'Cancelled by the client',
    );
    return entry.view;
  }

  /** The session closed: every unfinished task is cancelled (upstream too) and everything forgotten. */
  dispose(): void {
    this.disposed = true;
    for (const [taskId, entry] of this.entries) this.drop(taskId, entry, 'The session closed');
    this.changeEmitter.dispose();
    this.finishEmitter.dispose();
  }

  /** Unfinished tasks, of `owner` or of everyone. */
  private running(owner?: string): number {
    let count = 0;
    for (const entry of this.entries.values()) if (!entry.outcome && (owner === undefined || entry.owner === owner)) count += 1;
    return count;
  }

  /**
   * The oldest finished tasks go while the session keeps too many, or too large results. With
   * shares: a client over its own share makes room from its own, and a full store from the client
   * that keeps the most, never from a client within its share while another is over it.
   */
  private makeRoom(owner: string): void {
    const share = this.rules.perOwner?.maxKept;
    if (share !== undefined) this.dropFinished(share - 1, (entry) => entry.owner === owner);
    let chars = 0;
    for (const entry of this.entries.values()) chars += entry.outcomeChars;
    while (this.entries.size >= this.rules.maxKept || chars > MAX_KEPT_RESULT_CHARS) {
      const largest = share === undefined ? undefined : this.largestOwner();
      const dropped = this.dropFinished(0, largest === undefined ? () => true : (entry) => entry.owner === largest, 1);
      if (dropped === 0 && (largest === undefined || this.dropFinished(0, () => true, 1) === 0)) return;
      chars = 0;
      for (const entry of this.entries.values()) chars += entry.outcomeChars;
    }
  }

  /**
   * Drops the oldest finished tasks matching `whose` until at most `keep` of theirs are left (or
   * `limit` are dropped); says how many went.
   */
  private dropFinished(keep: number, whose: (entry: Entry<C>) => boolean, limit = Infinity): number {
    let theirs = 0;
    for (const entry of this.entries.values()) if (whose(entry)) theirs += 1;
    let dropped = 0;
    for (const [taskId, entry] of this.entries) {
      if (theirs <= keep || dropped >= limit) break;
      if (!whose(entry) || !entry.outcome) continue;
      this.drop(taskId, entry, 'Deleted to make room');
      theirs -= 1;
      dropped += 1;
    }
    return dropped;
  }

  private largestOwner(): string | undefined {
    const counts = new Map<string, number>();
    for (const entry of this.entries.values()) if (entry.outcome) counts.set(entry.owner, (counts.get(entry.owner) ?? 0) + 1);
    let largest: string | undefined;
    for (const [owner, count] of counts) if (largest === undefined || count > (counts.get(largest) ?? 0)) largest = owner;
    return largest;
  }

  /** Who started the task (the store's owner key), or undefined for a task it does not hold. */
  ownerOf(taskId: string): string | undefined {
    return this.entries.get(taskId)?.owner;
  }

  /**
   * Tasks of another owner are, to `owner`, tasks that do not exist (a team gateway's users: one
   * user cannot read, answer or cancel another's task even with its id).
   */
  assertOwner(taskId: string, owner: string): void {
    const entry = this.entries.get(taskId);
    if (entry && entry.owner !== owner) throw unknownTask(taskId);
  }

  private find(taskId: string): Entry<C> {
    const entry = this.entries.get(taskId);
    if (!entry) throw unknownTask(taskId);
    return entry;
  }

  private async ask<T>(entry: Entry<C>, send: (channel: C) => Promise<T>): Promise<T> {
    const signal = entry.controller.signal;
    if (signal.aborted) throw signal.reason;
    const channel = await new Promise<C>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      signal.addEventListener('abort', abort, { once: true });
      entry.waiting.push((value) => {
        signal.removeEventListener('abort', abort);
        // Counted as it is handed over, so the request carrying it waits for its answer.
        entry.open += 1;
        resolve(value);
      });
      this.settleStatus(entry);
      entry.pulse.fire();
    });
    try {
      return await send(channel);
    } finally {
      entry.open -= 1;
      this.settleStatus(entry);
      entry.pulse.fire();
    }
  }

  /** Sends every waiting ask on `channel`, and waits until they are answered (or the task ends). */
  private async carry(entry: Entry<C>, channel: C, signal: AbortSignal): Promise<void> {
    for (const deliver of entry.waiting.splice(0)) deliver(channel);
    while (entry.open > 0 && !entry.outcome && !signal.aborted) await nextPulse(entry, signal);
  }

  /** input_required while anything is asked and not answered, else working. */
  private settleStatus(entry: Entry<C>): void {
    const asking = entry.waiting.length > 0 || entry.open > 0 || entry.inputs.size > 0;
    this.setStatus(entry, asking ? 'input_required' : 'working', entry.view.statusMessage);
  }

  private setStatus(entry: Entry<C>, status: TaskStatus, message: string | undefined): void {
    if (entry.outcome) return;
    const statusMessage = message?.slice(0, MAX_MESSAGE_CHARS);
    if (status === entry.view.status && statusMessage === entry.view.statusMessage) return;
    const { statusMessage: _previous, ...rest } = entry.view;
    entry.view = {
      ...rest,
      status,
      statusMessage,
      lastUpdatedAt: new Date(this.clock.now()).toISOString(),
    };
    this.changeEmitter.fire(entry.view);
  }

  private finish(entry: Entry<C>, status: TaskStatus, outcome: TaskOutcome, message: string | undefined): void {
    if (entry.outcome) return;
    this.setStatus(entry, status, message ?? entry.view.statusMessage);
    entry.outcome = outcome;
    entry.outcomeChars = 'result' in outcome ? JSON.stringify(outcome.result).length : 0;
    entry.waiting.splice(0);
    entry.controller.abort(new ProtocolError(ProtocolErrorCode.InternalError, `Task ${entry.view.taskId} is ${status}`));
    entry.pulse.fire();
    this.finishEmitter.fire(entry.view);
  }

  private expire(taskId: string): void {
    const entry = this.entries.get(taskId);
    if (entry) this.drop(taskId, entry, 'Its ttl ran out');
  }

  private drop(taskId: string, entry: Entry<C>, why: string): void {
    this.clock.clearTimeout(entry.expiry);
    this.finish(
      entry,
      'cancelled',
      { error: new ProtocolError(ProtocolErrorCode.InternalError, `Task ${taskId} was cancelled: ${why}`) },
      why,
    );
    this.entries.delete(taskId);
    entry.pulse.dispose();
  }
}

/** Resolves at the task's next pulse, or when `signal` aborts; leaves no listener behind. */
function nextPulse(entry: { readonly pulse: Emitter<void> }, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      listener.dispose();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const listener = entry.pulse.event(done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** What a failed tool said, for the task's status message (the editor shows it). */
function firstText(result: CallToolResult): string | undefined {
  const text = result.content?.find((block) => block.type === 'text');
  return text && 'text' in text ? text.text : undefined;
}

function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown task ${taskId.slice(0, 100)}: it never existed in this session, or its ttl ran out`,
  );
}
