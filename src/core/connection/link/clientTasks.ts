// Tasks a 2025-11-25 server hands to its client: a sampling or elicitation request with a `task`
// field is answered at once with a task, which the server then follows with `tasks/get` and
// collects with `tasks/result` (or ends with `tasks/cancel`). The editor's own client declares
// this, and servers offer tools that need it only to clients that declare it (server-everything's
// trigger-*-async tools). Switchboard answers the request itself with the same handlers as a plain
// one, so whoever would be asked (the editor, a gateway client, the host) is asked the same way.
// The task bookkeeping is the SDK's tasks package (its receiver binding); this module bounds it.
import type { Client, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { TaskReceiverBinding } from '@modelcontextprotocol/ext-tasks/receiver' with { 'resolution-mode': 'import' };
import type { Logger } from '../../base/logging';
import { errorMessage } from '../../base/errorMessage';

/** What answers a server's sampling and elicitation (clientLink's ServerRequestHandlers has them). */
export interface TaskAnswerers {
  readonly elicit?: (params: ElicitRequest['params']) => Promise<ElicitResult>;
  readonly sample?: (params: CreateMessageRequest['params']) => Promise<CreateMessageResult>;
}

type Receiver = typeof import('@modelcontextprotocol/ext-tasks/receiver', { with: { 'resolution-mode': 'import' } });

/**
 * At most this many tasks kept per server, finished ones included (the oldest finished goes
 * first): each open one is a question someone is being asked, and nobody answers dozens at once.
 */
const MAX_TASKS = 32;
/** A task is forgotten this long after it was made, answered or not (the longest a server-everything task asks for). */
const TASK_TTL_MS = 10 * 60_000;

/** The receiver package is ESM only: loaded once, by the first connect that needs it (esbuild bundles it). */
let receiverModule: Promise<Receiver> | undefined;
export function loadReceiver(): Promise<Receiver> {
  receiverModule ??= import('@modelcontextprotocol/ext-tasks/receiver');
  return receiverModule;
}

/** The `tasks` client capability (2025-11-25) for the handlers given; undefined without sampling or elicitation. */
export function clientTasksCapability(handlers: TaskAnswerers): Record<string, unknown> | undefined {
  if (!handlers.sample && !handlers.elicit) return undefined;
  return {
    list: {},
    cancel: {},
    requests: {
      ...(handlers.sample ? { sampling: { createMessage: {} } } : {}),
      ...(handlers.elicit ? { elicitation: { create: {} } } : {}),
    },
  };
}

/** The request as a plain one: the task is Switchboard's, not the answerer's business. */
function withoutTask<P extends object>(params: P): P {
  const { task: _task, ...rest } = params as P & { task?: unknown };
  return rest as P;
}

/**
 * Answers task-augmented sampling and elicitation on `client` (plain requests keep their own
 * handlers). Closed with the client: the tasks still open are rejected, their questions dropped.
 */
export function receiveClientTasks(
  receiver: Receiver,
  client: Client,
  handlers: TaskAnswerers,
  logger: Logger,
): TaskReceiverBinding | undefined {
  const { sample, elicit } = handlers;
  if (!sample && !elicit) return undefined;
  type Answer = ReturnType<NonNullable<Parameters<Receiver['bindTaskReceiver']>[1]['sampling']>>;
  const binding = receiver.bindTaskReceiver(client as never, {
    methods: { 'sampling/createMessage': sample !== undefined, 'elicitation/create': elicit !== undefined },
    ...(sample ? { sampling: (request) => sample(withoutTask(request.params) as never) as unknown as Answer } : {}),
    ...(elicit ? { elicitation: (request) => elicit(withoutTask(request.params) as never) as unknown as Answer } : {}),
    ttlMs: TASK_TTL_MS,
    maxTasks: MAX_TASKS,
    onError: (error, context) =>
      logger.debug(
        `task ${context.taskId ?? ''} of ${context.method}${context.lateAfter ? ` (after ${context.lateAfter})` : ''}: ${errorMessage(error)}`,
      ),
  });
  const closed = client.onclose;
  client.onclose = () => {
    binding.close();
    closed?.();
  };
  return binding;
}
