// A tool that requires a task (2025-11-25 `execution.taskSupport: "required"`) answers only a
// task-augmented call. A caller that makes a plain call (chat through the dispatcher tools, Run
// Tool, `doctor --call`, a gateway client that does not speak tasks) gets its result anyway:
// Switchboard creates the task, follows it at the server's poll interval, reports each status as
// progress, cancels it upstream when the caller gives up, and returns the final result. The
// protocol work is the SDK's tasks package (`@modelcontextprotocol/ext-tasks`): one task session
// per client, since its adapter takes over the client's fallback handlers while it lives. A
// 2026-07-28 server's tasks are followed on the raw path instead (serverTasks.ts).
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type Client, type Progress, type Tool } from '@modelcontextprotocol/client';
import type { TaskEnabledSession, TaskFailedError } from '@modelcontextprotocol/ext-tasks/client' with { 'resolution-mode': 'import' };
import { z } from 'zod';
import { errorMessage } from '../../base/errorMessage';
import type { Clock } from '../../base/clock';
import type { Logger } from '../../base/logging';
import { NO_TIMEOUT, TASKS_EXTENSION, SwitchboardError, isSwitchboardError } from '../link';
import type { RunningTasks } from './runningTasks';

/** `tasks/result` is read by the tasks package; the one kept open for a waiting task is not. */
const ANY_RESULT = z.object({}).passthrough();

/** How long a cancelled call waits for the server to confirm `tasks/cancel`. */
const CANCEL_TIMEOUT_MS = 5_000;

/** Whether a plain call of `tool` must be run as a task. */
export function requiresTask(tool: Tool | undefined): boolean {
  return (tool?.execution as { taskSupport?: unknown } | undefined)?.taskSupport === 'required';
}

type ExtTasks = typeof import('@modelcontextprotocol/ext-tasks/client', { with: { 'resolution-mode': 'import' } });
type EsmClient = typeof import('@modelcontextprotocol/client', { with: { 'resolution-mode': 'import' } });

/** The tasks package is ESM only: loaded once, when a first task runs (esbuild bundles it). */
let modules: Promise<{ readonly tasks: ExtTasks; readonly esm: EsmClient }> | undefined;
function loadModules(): Promise<{ readonly tasks: ExtTasks; readonly esm: EsmClient }> {
  modules ??= Promise.all([import('@modelcontextprotocol/ext-tasks/client'), import('@modelcontextprotocol/client')]).then(
    ([tasks, esm]) => ({ tasks, esm }),
  );
  return modules;
}

/**
 * The client as the tasks package sees it. The package tells a JSON-RPC error from a broken
 * request by `instanceof ProtocolError` of the ESM build it imports, and this CommonJS code's
 * client throws the other build's (the dual-package hazard, unbundled in tests): its errors are
 * rethrown as the package's class, code, message and data unchanged. Everything else is the client.
 */
function asSeenByTasks(client: Client, esm: EsmClient): Client {
  const request = (async (...args: Parameters<Client['request']>) => {
    try {
      return await client.request(...args);
    } catch (error) {
      if (error instanceof ProtocolError && !(error instanceof esm.ProtocolError))
        throw new esm.ProtocolError(error.code, error.message, error.data);
      throw error;
    }
  }) as Client['request'];
  return new Proxy(client, { get: (target, key, receiver) => (key === 'request' ? request : Reflect.get(target, key, receiver)) });
}

/** Whether `error` is a 2026-07-28 server saying the call needs the tasks extension (-32021). */
export function needsTasks(error: unknown): boolean {
  if (!isSwitchboardError(error, 'SERVER_ERROR') || error.rpcCode !== ProtocolErrorCode.MissingRequiredClientCapability) return false;
  const required = (error.data as { requiredCapabilities?: { extensions?: Record<string, unknown> } } | undefined)?.requiredCapabilities;
  return required?.extensions?.[TASKS_EXTENSION] !== undefined;
}

export class TaskCalls {
  private session: { readonly client: Client; readonly tasks: TaskEnabledSession } | undefined;

  constructor(
    private readonly server: string,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `tool` as a task on `client` and returns its result. `signal` ends it (and cancels it
   * upstream); each status the server reports goes to `onProgress`, which also keeps the request's
   * quiet-time limit from ending a task that is still working. `headers` go with every message of
   * the task (the tasks package passes them to its follow-ups): a user's credential.
   */
  async run(
    client: Client,
    tool: Tool,
    args: Record<string, unknown>,
    registry: RunningTasks,
    signal: AbortSignal,
    onProgress: (progress: Progress) => void,
    headers?: Readonly<Record<string, string>>,
  ): Promise<CallToolResult> {
    const { tasks: ext, esm } = await loadModules();
    const declaration = ext.toolDeclarationFromMcpTool(tool as Parameters<ExtTasks['toolDeclarationFromMcpTool']>[0]);
    // Arguments were checked against the tool's schema (offerKeeper): JSON from here on.
    return this.settle(client, tool.name, registry, signal, onProgress, headers, (cancelled) =>
      this.sessionFor(client, ext, esm).callTool(tool.name, args as Parameters<TaskEnabledSession['callTool']>[1], {
        declaration,
        signal: cancelled,
        task: { preference: 'require' },
        headers,
      }),
    );
  }

  /** The execution `start` makes, followed to its outcome: listed in `registry`, cancelled upstream when `signal` ends it. */
  private async settle(
    client: Client,
    tool: string,
    registry: RunningTasks,
    signal: AbortSignal,
    onProgress: (progress: Progress) => void,
    headers: Readonly<Record<string, string>> | undefined,
    start: (signal: AbortSignal) => Promise<Awaited<ReturnType<TaskEnabledSession['callTool']>>>,
  ): Promise<CallToolResult> {
    const { tasks: ext } = await loadModules();
    const slot = registry.reserve(tool);
    const cancelled = new AbortController();
    let told: Promise<void> | undefined;
    const stop = () => cancelled.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    try {
      const execution = await start(cancelled.signal);
      // When the call ends by cancellation, it ends once the server was told (or gave no answer in time).
      const cancelUpstream = () => {
        told = this.bounded(execution.cancel.bind(execution)).catch((error: unknown) =>
          this.logger.debug(`tasks/cancel of a ${tool} task failed: ${errorMessage(error)}`),
        );
      };
      if (execution.kind === 'task')
        slot.started(execution.handle.taskId, () => cancelled.abort(new SwitchboardError('CANCELLED', `the ${tool} task was cancelled`)));
      if (cancelled.signal.aborted) cancelUpstream();
      else cancelled.signal.addEventListener('abort', cancelUpstream, { once: true });
      let step = 0;
      let last: string | undefined;
      const askedFor = execution.kind === 'task' ? this.deliveryOf(client, execution.handle.taskId, cancelled.signal, headers) : undefined;
      const { outcome } = await execution.settle({
        signal: cancelled.signal,
        onEvent: (event) => {
          const view = ext.taskViewFromExecutionEvent(event);
          if (!view) return;
          if (view.status === 'input_required') askedFor?.();
          slot.status(view.status, view.statusMessage);
          // The terminal event repeats the last status message: one progress per change.
          const message = view.statusMessage ?? view.status;
          if (message === last) return;
          last = message;
          step += 1;
          onProgress({ progress: step, message });
        },
      });
      switch (outcome.status) {
        case 'completed':
          return outcome.result as CallToolResult;
        case 'cancelled':
          throw new SwitchboardError('CANCELLED', `the ${tool} task was cancelled by the server`);
        case 'failed':
          throw failure(outcome.error);
      }
    } catch (error) {
      await told;
      if (cancelled.signal.aborted && !signal.aborted)
        throw new SwitchboardError('CANCELLED', `the ${tool} task was cancelled`, { cause: error });
      throw error instanceof ext.TaskCancelledError
        ? new SwitchboardError('CANCELLED', `the ${tool} task was cancelled`, { cause: error })
        : error;
    } finally {
      signal.removeEventListener('abort', stop);
      slot.release();
    }
  }

  /**
   * A 2025-11-25 task that waits for input has queued what it asks (elicitation, sampling) for the
   * client's `tasks/result`, which the tasks package does not send until the task ends. So while
   * it waits, one `tasks/result` is kept open: the server delivers its requests on it, the
   * client's handlers answer them (the router: the caller's client, else the host), and the task
   * goes on. Its own answer (the final result) is the package's to read; this one is dropped.
   */
  private deliveryOf(
    client: Client,
    taskId: string,
    signal: AbortSignal,
    headers: Readonly<Record<string, string>> | undefined,
  ): () => void {
    let open = false;
    return () => {
      if (open || signal.aborted) return;
      open = true;
      client
        .request({ method: 'tasks/result', params: { taskId } } as Parameters<Client['request']>[0], ANY_RESULT, {
          signal,
          timeout: NO_TIMEOUT,
          headers,
        })
        .catch((error: unknown) => this.logger.debug(`tasks/result while a task waits for input: ${errorMessage(error)}`))
        .finally(() => (open = false));
    };
  }

  /** Runs `request` with a signal that ends it after CANCEL_TIMEOUT_MS on the connection's clock. */
  private async bounded(request: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const deadline = new AbortController();
    const timer = this.clock.setTimeout(() => deadline.abort(new Error(`no answer within ${CANCEL_TIMEOUT_MS} ms`)), CANCEL_TIMEOUT_MS);
    try {
      await request(deadline.signal);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /** Closes the task session (the connection's session is closing). */
  async close(): Promise<void> {
    const current = this.session;
    this.session = undefined;
    await current?.tasks.close().catch((error: unknown) => this.logger.debug(`closing the task session failed: ${errorMessage(error)}`));
  }

  private sessionFor(client: Client, ext: ExtTasks, esm: EsmClient): TaskEnabledSession {
    if (this.session?.client === client) return this.session.tasks;
    // A renewed HTTP session has a new client: the old task session goes with the old client.
    void this.close();
    const seen = asSeenByTasks(client, esm) as unknown as Parameters<ExtTasks['createTaskSessionFromClient']>[0];
    const tasks = ext.createTaskSessionFromClient(seen, {
      endpointId: this.server,
      onError: (error: Error) => this.logger.debug(`tasks: ${errorMessage(error)}`),
    });
    this.session = { client, tasks };
    return tasks;
  }
}

/** A failed task, as the caller sees a failed request: the server's code and data when it gave them. */
function failure(error: TaskFailedError): Error {
  if (error.code === undefined) return new ProtocolError(ProtocolErrorCode.InternalError, error.message);
  return new ProtocolError(error.code, error.message, error.data);
}
