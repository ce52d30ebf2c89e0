// What the gateway does about its replicas on a request's way: which replica holds what the request
// refers to, what to answer when that replica is gone, and keeping finished tasks for the others.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Task } from '@modelcontextprotocol/server';
import type { Disposable } from '../../base/events';
import { errorMessage } from '../../base/errorMessage';
import type { Logger } from '../../base/logging';
import type { Principal } from '../../identity';
import { detailed, type SessionTasks } from '../tasks';
import { FORWARDED_HEADER, type ReplicaRouter, type SharedTaskStore } from './replicas';

/** Ids marked as this replica's. */
export function markedId(replicas: ReplicaRouter): () => string {
  return () => replicas.mint(randomUUID());
}

/** The other replica that holds what one of `ids` refers to; never for a request already forwarded once. */
export function holderOf(replicas: ReplicaRouter | undefined, req: http.IncomingMessage, ids: readonly string[]): string | undefined {
  if (!replicas || req.headers[FORWARDED_HEADER] !== undefined) return undefined;
  for (const id of ids) {
    const holder = replicas.holderOf(id);
    if (holder !== undefined) return holder;
  }
  return undefined;
}

/**
 * The replica that held a task or round cannot be reached (stopped, or restarted under another
 * address). A finished task is answered from the shared store, for its own user only; anything
 * else is over, and the client is told to start again.
 */
export async function answerForGoneReplica(
  res: http.ServerResponse,
  body: unknown,
  principal: Principal | undefined,
  tasks: SharedTaskStore | undefined,
  logger: Logger,
): Promise<void> {
  const { id, method, params } = body as { id?: unknown; method?: unknown; params?: { taskId?: unknown } };
  const rpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
  const answer = (message: Record<string, unknown>): void => {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: rpcId, ...message }));
  };
  if (method === 'tasks/get' && typeof params?.taskId === 'string' && tasks) {
    try {
      const stored = await tasks.get(params.taskId);
      if (stored && (principal === undefined || stored.owner.startsWith(`${principal.key}\u0000`)))
        return answer({ result: stored.result });
    } catch (error) {
      logger.warn(`the shared task store could not be read: ${errorMessage(error)}`);
    }
  }
  const isTask = method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel';
  answer({
    error: {
      code: -32602,
      message: isTask
        ? 'Unknown task: the gateway replica that ran it is gone, and it had not finished'
        : 'This requestState belongs to a gateway replica that is gone: send the request again without it',
    },
  });
}

/** Every 2026-07-28 task that ends is kept in the shared store, for when its replica is gone. */
export function keepFinishedTasks(tasks: SessionTasks<never>, shared: SharedTaskStore, logger: Logger): Disposable {
  return tasks.onDidFinish((task: Task) => {
    const owner = tasks.ownerOf(task.taskId);
    if (owner === undefined) return;
    shared
      .put(task.taskId, { owner, result: detailed(tasks.detail(task.taskId)) }, task.ttl ?? 600_000)
      .catch((error: unknown) => logger.warn(`task ${task.taskId} was not kept in the shared store: ${errorMessage(error)}`));
  });
}
