// 2025-11-25 tasks on a gateway session: a client that declared tasks (the editor does) sees each
// tool's `execution.taskSupport` and may call a tool that supports tasks with `task`; the gateway
// answers with a task of its own (sessionTasks.ts) that runs the same call a plain request would.
// The client polls it with tasks/get, waits for its result with tasks/result, lists and cancels it.
import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type CallToolRequestParams,
  type CallToolResult,
  type CreateTaskResult,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Logger } from '../../base/logging';
import { errorMessage } from '../../base/errorMessage';
import type { CallerOptions, RelayRouter } from '../../connection';
import { sessionRelay, type RelayChannel } from '../rounds';
import { SessionTasks, type TaskWork } from './sessionTasks';
import { asTaskHandle } from '../../sdk';

/** What the gateway receives as tasks: task-augmented tools/call, and the tasks methods. */
export const GATEWAY_TASKS: NonNullable<ServerCapabilities['tasks']> = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

export type GatewayTasks = SessionTasks<ServerContext>;

/** The params of every tasks/* request that names a task, in both revisions. */
export const TASK_PARAMS = z.looseObject({ taskId: z.string().max(200) });
const LIST_PARAMS = z.looseObject({ cursor: z.string().max(200).optional() });

/** Whether this session's client drives tasks itself: it declared any `tasks` capability. */
export function drivesTasks(server: Server): boolean {
  return server.getClientCapabilities()?.tasks !== undefined;
}

export function registerTaskHandlers(server: Server, tasks: GatewayTasks, logger: Logger): void {
  // The SDK types its methods of this revision without tasks/*: registered with their params' schemas.
  server.setRequestHandler('tasks/get', { params: TASK_PARAMS }, (params, ctx) => tasks.get(params.taskId, ctx, ctx.mcpReq.signal));
  server.setRequestHandler('tasks/result', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
    const outcome = await tasks.result(taskId, ctx, ctx.mcpReq.signal);
    if ('error' in outcome) throw outcome.error;
    return { ...outcome.result, _meta: { ...outcome.result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });
  server.setRequestHandler('tasks/list', { params: LIST_PARAMS }, async (params) => tasks.list(params.cursor));
  server.setRequestHandler('tasks/cancel', { params: TASK_PARAMS }, async (params) => tasks.cancel(params.taskId));
  tasks.onDidChange((task) => {
    server
      .notification({ method: 'notifications/tasks/status', params: task })
      .catch((error: unknown) => logger.debug(`notifications/tasks/status for task ${task.taskId}: ${errorMessage(error)}`));
  });
}

/** What one task-augmented call needs besides its request. */
export interface TaskCall {
  readonly server: Server;
  readonly tasks: GatewayTasks;
  readonly relays: RelayRouter;
  readonly logger: Logger;
  /** The upstream server the call goes to (its relay scope). */
  readonly upstream: string;
  /** The call itself, as a plain request makes it; throws the JSON-RPC error the client should see. */
  readonly run: (options: CallerOptions) => Promise<CallToolResult>;
}

/**
 * Creates the task and returns at once. Progress becomes the task's status message, and still
 * reaches the client's progress token (valid for the task's lifetime); what the upstream asks goes
 * to the client on its next request about the task, marked as related to it.
 */
export function startToolTask(call: TaskCall, params: CallToolRequestParams): CreateTaskResult {
  const { server, tasks, relays, logger, upstream } = call;
  const progressToken = params._meta?.progressToken;
  const task = tasks.start(params.task?.ttl, (work) => {
    const options: CallerOptions = {
      signal: work.signal,
      onProgress: (progress) => {
        if (progress.message) work.report(progress.message);
        if (progressToken === undefined) return;
        server
          .notification({ method: 'notifications/progress', params: { ...progress, progressToken } })
          .catch((error: unknown) => logger.debug(`progress of task ${work.taskId}: ${errorMessage(error)}`));
      },
    };
    return relays.run(upstream, sessionRelay(server, taskChannel(work)), call.run, options);
  });
  return asTaskHandle({ task });
}

/** A task's requests to the client go out on the client's next request about the task. */
function taskChannel(work: TaskWork<ServerContext>): RelayChannel {
  const related = <P extends { _meta?: Record<string, unknown> }>(params: P): P => ({
    ...params,
    _meta: { ...params._meta, [RELATED_TASK_META_KEY]: { taskId: work.taskId } },
  });
  return {
    elicitInput: (params, options) => work.ask((ctx) => ctx.mcpReq.elicitInput(related(params), options)),
    requestSampling: (params, options) => work.ask((ctx) => ctx.mcpReq.requestSampling(related(params), options)),
  };
}

/** A task-augmented call of a tool that does not support tasks (2025-11-25: SHOULD be -32601). */
export function noTaskSupport(name: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.MethodNotFound,
    `Tool "${name}" does not run as a task (its execution.taskSupport is "forbidden"); call it without "task"`,
  );
}
