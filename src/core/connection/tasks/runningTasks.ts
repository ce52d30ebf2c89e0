// The tasks a connection is running for its callers (taskCalls.ts): a tool that requires a task
// (2025-11-25 `execution.taskSupport: "required"`) is run as one for a caller that makes a plain
// call. Bounded per server; each can be cancelled (the tree's Cancel Task, the caller's signal).
import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/client';
import { Emitter, type Event } from '../../base/events';
import { type ServerRequestHandlers, SwitchboardError } from '../link';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Terminal statuses: the task is over and is about to leave the list. */
export function isTaskOver(status: TaskStatus): boolean {
  switch (status) {
    case 'completed':
    case 'failed':
    case 'cancelled':
      return true;
    case 'working':
    case 'input_required':
      return false;
  }
}

export interface RunningTask {
  /** The server's task id. */
  readonly id: string;
  readonly tool: string;
  readonly status: TaskStatus;
  /** The server's latest `statusMessage`, bounded. */
  readonly message?: string;
  readonly since: number;
}

/** More tasks at once on one server than a person can follow; a call beyond is refused, unsent. */
export const MAX_TASKS_PER_SERVER = 32;
const MAX_MESSAGE_CHARS = 500;

interface Entry {
  task: RunningTask;
  readonly cancel: () => void;
  /** Aborted when the task leaves the list (result, failure, cancel). */
  readonly ended: AbortController;
}

/** A place held for a task between the call and the server's task id. */
export interface TaskSlot {
  /** The server created the task: it is listed from now on. */
  started(id: string, cancel: () => void): void;
  status(status: TaskStatus, message: string | undefined): void;
  /** The call ended (result, failure, cancel): the slot is free. Idempotent. */
  release(): void;
}

export class RunningTasks {
  private readonly entries = new Map<string, Entry>();
  private reserved = 0;
  private readonly changeEmitter = new Emitter<void>();
  /** A task started, changed status or ended. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;

  constructor(
    private readonly server: string,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  list(): RunningTask[] {
    return [...this.entries.values()].map((entry) => entry.task);
  }

  /** Holds a place for a task-run call of `tool`; throws when the server has its maximum. */
  reserve(tool: string): TaskSlot {
    if (this.reserved >= MAX_TASKS_PER_SERVER) {
      throw new SwitchboardError(
        'BUSY',
        `server \`${this.server}\` is running ${MAX_TASKS_PER_SERVER} tasks, the most Switchboard runs at once on one server; try again when one ends`,
        { notSent: true },
      );
    }
    this.reserved += 1;
    let id: string | undefined;
    let released = false;
    const update = (change: Partial<RunningTask>) => {
      const entry = id === undefined ? undefined : this.entries.get(id);
      if (!entry) return;
      entry.task = { ...entry.task, ...change };
      this.changeEmitter.fire();
    };
    return {
      started: (taskId, cancel) => {
        if (released || this.entries.has(taskId)) return;
        id = taskId;
        this.entries.set(taskId, {
          task: { id: taskId, tool, status: 'working', since: this.now() },
          cancel,
          ended: new AbortController(),
        });
        this.changeEmitter.fire();
      },
      status: (status, message) => update({ status, ...(message === undefined ? {} : { message: message.slice(0, MAX_MESSAGE_CHARS) }) }),
      release: () => {
        if (released) return;
        released = true;
        this.reserved -= 1;
        const entry = id === undefined ? undefined : this.entries.get(id);
        if (!entry || id === undefined) return;
        this.entries.delete(id);
        entry.ended.abort(new SwitchboardError('CANCELLED', `the ${tool} task ended`));
        this.changeEmitter.fire();
      },
    };
  }

  /** Cancels a running task (upstream `tasks/cancel`); false when there is no such task. */
  cancel(id: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    entry.cancel();
    return true;
  }

  /**
   * `handlers` whose questions asked for one of these tasks (a 2025-11-25 request that names its
   * related task) are withdrawn when the task ends: the form of a cancelled task goes away.
   */
  withdrawingOnEnd(handlers: ServerRequestHandlers): ServerRequestHandlers {
    const { elicit } = handlers;
    if (!elicit) return handlers;
    return {
      ...handlers,
      elicit: (params, signal) => {
        const related = (params._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined)?.taskId;
        const ended = typeof related === 'string' ? this.entries.get(related)?.ended.signal : undefined;
        return elicit(params, ended && signal ? AbortSignal.any([signal, ended]) : (ended ?? signal));
      },
    };
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}
