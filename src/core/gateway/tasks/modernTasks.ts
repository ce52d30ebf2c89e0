// 2026-07-28 tasks (the tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663) for the
// gateway's sessionless clients. Task creation is the server's decision: a call of a tool whose
// upstream supports tasks, from a client that declared the extension on its request, runs as usual
// for up to ESCALATE_MS; one that ends (or asks a round) by then is answered as it is, one still
// running becomes a task the client polls with tasks/get. The call goes on inside the task; what
// its upstream asks in later rounds becomes the task's `inputRequests`, which the client answers
// with tasks/update. Task ids are random; one store serves the gateway (no sessions to scope by).
import {
  MissingRequiredClientCapabilityError,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type InputRequiredResult,
  type Server,
  type ServerContext,
  type Task,
} from '@modelcontextprotocol/server';
import type { Clock } from '../../base/clock';
import {
  type CallerOptions,
  TASKS_EXTENSION,
  isTaskOver,
  INPUT_METHOD,
  isInputRound,
  type ClientInputRound,
  askingRelay,
  type Relay,
} from '../../connection';
import { clientKeyOf, declaresTasks, type OpenRound } from '../rounds';
import { principalOf } from '../../identity';
import { SessionTasks, type TaskDetail, type TaskRules, type TaskWork } from './sessionTasks';
import { TASK_PARAMS } from './taskHandlers';
import { asTaskHandle } from '../../sdk';

export { TASKS_EXTENSION };

/** How long a task-supporting call runs before its client gets a task instead of waiting. */
export const ESCALATE_MS = 400;

export const MODERN_RULES: TaskRules = {
  toolErrorFails: false,
  maxRunning: 64,
  maxKept: 256,
  perOwner: { maxRunning: 16, maxKept: 64 },
  holder: 'The gateway',
};

/** The gateway's tasks for 2026-07-28 clients, and the clock that times escalation. */
export interface ModernTasks {
  readonly tasks: SessionTasks<never>;
  readonly clock: Clock;
}

/** @param newId a task's id (randomUUID unless a team gateway's replica marks its own). */
export function createModernTasks(clock: Clock, newId?: () => string): ModernTasks {
  return { tasks: new SessionTasks<never>(clock, MODERN_RULES, newId), clock };
}

function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(ctx))
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
}

/** The task in the extension's field names (`ttlMs`, `pollIntervalMs`). */
function wireTask(task: Task): Record<string, unknown> {
  const { ttl, pollInterval, ...rest } = task;
  return { ...rest, ttlMs: ttl, pollIntervalMs: pollInterval };
}

/** tasks/get's DetailedTask: the result of a completed task, the error of a failed one, what an input_required one asks. */
export function detailed({ task, outcome, inputRequests }: TaskDetail): Record<string, unknown> {
  const base = { resultType: 'complete', ...wireTask(task) };
  switch (task.status) {
    case 'completed':
      // A 2026-07-28 tool result, as it would have come back from the call itself.
      return outcome && 'result' in outcome ? { ...base, result: { ...withoutRelatedTask(outcome.result), resultType: 'complete' } } : base;
    case 'failed':
      return outcome && 'error' in outcome
        ? {
            ...base,
            error: {
              code: outcome.error.code,
              message: outcome.error.message,
              data: outcome.error.data,
            },
          }
        : base;
    case 'input_required':
      return { ...base, inputRequests };
    case 'working':
    case 'cancelled':
      return base;
  }
}

/**
 * The result as the task's own: an upstream's 2025-11-25 task marks its result with its own task
 * id (`related-task`), which names nothing here, and the extension forbids the key on the result.
 */
function withoutRelatedTask(result: CallToolResult): CallToolResult {
  if (result._meta?.[RELATED_TASK_META_KEY] === undefined) return result;
  const { [RELATED_TASK_META_KEY]: _upstream, ...meta } = result._meta;
  const { _meta: _all, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/** tasks/get, tasks/update and tasks/cancel, for clients that declared the extension (-32021 for the rest). */
export function registerModernTaskHandlers(server: Server, { tasks }: ModernTasks): void {
  server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, async (params, ctx) => {
    requireTasks(ctx);
    ownTask(tasks, params.taskId, ctx);
    return detailed(tasks.detail(params.taskId));
  });
  server.setRequestHandler('tasks/update', { params: TASK_PARAMS }, async (params, ctx) => {
    requireTasks(ctx);
    ownTask(tasks, params.taskId, ctx);
    // The SDK lifts `inputResponses` off the params of every request (SEP-2322) into the context.
    tasks.update(params.taskId, ctx.mcpReq.inputResponses ?? {});
    return { resultType: 'complete' };
  });
  server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async (params, ctx) => {
    requireTasks(ctx);
    ownTask(tasks, params.taskId, ctx);
    // Idempotent: a task that already ended is acknowledged as it is.
    if (!isTaskOver(tasks.detail(params.taskId).task.status)) tasks.cancel(params.taskId);
    return { resultType: 'complete' };
  });
}

/**
 * On a team gateway a task is its user's: another user's request sees no such task. (Without
 * users, every client holds the one token, and a task id is enough, as before.)
 */
function ownTask(tasks: ModernTasks['tasks'], taskId: string, ctx: ServerContext): void {
  if (principalOf(ctx.http?.authInfo)) tasks.assertOwner(taskId, clientKeyOf(ctx));
}

type Outcome = CallToolResult | ClientInputRound;
/** The call, with what its upstream asks meanwhile (a 2025 upstream's own requests) going to `relay`. */
type Run = (options: CallerOptions, relay: Relay) => Promise<Outcome>;

/**
 * Runs the call; answers it as a plain call would when it ends (or asks a round) within
 * ESCALATE_MS, and as a task otherwise, or as soon as its upstream asks the client something.
 * `run` throws the JSON-RPC error the client should see.
 */
export async function callOrEscalate(
  modern: ModernTasks,
  ctx: ServerContext,
  round: OpenRound,
  run: Run,
): Promise<CallToolResult | InputRequiredResult> {
  const controller = new AbortController();
  const fromRequest = () => controller.abort(ctx.mcpReq.signal.reason);
  ctx.mcpReq.signal.addEventListener('abort', fromRequest, { once: true });
  // The upstream's progress messages become the task's status message once there is a task.
  let report: ((message: string) => void) | undefined;
  const onProgress = (progress: { message?: string }) => {
    if (progress.message) report?.(progress.message);
  };
  let timer: unknown;
  let escalateNow: () => void = () => undefined;
  const escalate = new Promise<undefined>((resolve) => {
    escalateNow = () => resolve(undefined);
    timer = modern.clock.setTimeout(escalateNow, ESCALATE_MS);
  });
  const working = deferred<TaskWork<never>>();
  // What a 2025 upstream asks meanwhile, of the kinds the client declared, is the task's input request.
  const relay = askingRelay(round.options.rounds?.clientAnswers ?? new Set(), async (kind, params) => {
    escalateNow();
    return (await working.promise).input(kind, { method: INPUT_METHOD[kind], params });
  });
  // A task the upstream makes of the call is the client's task from that moment: no wait for ESCALATE_MS.
  const clientTasks = { declared: true, onUpstreamTask: () => escalateNow() };
  const first = run({ ...round.options, signal: controller.signal, onProgress, clientTasks }, relay).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const settled = await Promise.race([first, escalate]);
  modern.clock.clearTimeout(timer);
  ctx.mcpReq.signal.removeEventListener('abort', fromRequest);
  if (settled !== undefined) {
    if ('error' in settled) throw settled.error;
    return (await round.reply(settled.value)) as CallToolResult | InputRequiredResult;
  }
  // From here the call belongs to the task: the request that started it is answered now.
  try {
    const task = modern.tasks.start(
      undefined,
      async (work) => {
        work.signal.addEventListener('abort', () => controller.abort(work.signal.reason), { once: true });
        report = (message) => work.report(message);
        working.resolve(work);
        const outcome = await first;
        if ('error' in outcome) throw outcome.error;
        return continueRounds(outcome.value, work, { ...round.options, onProgress, clientTasks }, (options) => run(options, relay));
      },
      clientKeyOf(ctx),
    );
    return asTaskHandle({ resultType: 'task', ...wireTask(task) }) as unknown as CallToolResult;
  } catch (error) {
    // No room for a task: the call it would have run ends here.
    controller.abort(error);
    working.reject(error);
    throw error;
  }
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // An ask that never came leaves nobody waiting on a refusal.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** The upstream's later rounds, asked of the client as the task's input requests, until it ends. */
async function continueRounds(
  outcome: Outcome,
  work: TaskWork<never>,
  options: CallerOptions,
  run: (options: CallerOptions) => Promise<Outcome>,
): Promise<CallToolResult> {
  let current = outcome;
  while (isInputRound(current)) {
    const asked = Object.entries(current.inputRequests ?? {});
    const answers = await Promise.all(
      asked.map(async ([key, request]) => [key, await work.input(key, request as Record<string, unknown>)] as const),
    );
    const clientAnswers = options.rounds?.clientAnswers ?? new Set();
    current = await run({
      ...options,
      signal: work.signal,
      rounds: {
        clientAnswers,
        inputResponses: { ...current.answeredByHost, ...Object.fromEntries(answers) },
        requestState: current.requestState,
      },
    });
  }
  return current;
}
