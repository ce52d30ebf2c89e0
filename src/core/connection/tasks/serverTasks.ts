// A task a 2026-07-28 server made of a call (the tasks extension, SEP-2663), followed to its outcome
// for the caller: polled with tasks/get at the server's interval, each status reported as progress,
// each input request asked of the handlers (the caller's client, else the host) as soon as it
// appears, several at once, and each answer sent with tasks/update as soon as it is given, so that
// a client in front sees every open request and may answer them one by one. The caller giving up
// cancels the task upstream. The SDK client refuses this traffic, so it goes on the raw path
// (rawRequests.ts), framed as the client frames its requests.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  type CallToolResult,
  type Progress,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { Clock } from '../../base/clock';
import { errorMessage } from '../../base/errorMessage';
import type { Logger } from '../../base/logging';
import {
  clientCapabilities,
  TASKS_EXTENSION,
  type ClientLink,
  type LinkOptions,
  type ServerRequestHandlers,
  SwitchboardError,
  type RawRequests,
} from '../link';
import { answerForHost } from '../rounds';
import type { RunningTasks } from './runningTasks';

/** How a 2026-07-28 server's task traffic travels: raw, framed as the client frames its requests. */
export interface ServerTaskPath {
  readonly raw: RawRequests;
  readonly framing: {
    readonly protocolVersion: string;
    readonly clientInfo: Readonly<Record<string, unknown>>;
    readonly clientCapabilities: Readonly<Record<string, unknown>>;
  };
  readonly handlers: ServerRequestHandlers;
  /** What each message of the task carries (the credential of the user it was made for). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** How a 2026-07-28 server's tasks travel on `link`: raw, framed as its client frames its requests. */
export function serverTaskPath(
  link: Pick<ClientLink, 'raw' | 'protocolVersion'>,
  options: Pick<LinkOptions, 'serverRequests' | 'clientInfo'>,
  headers?: Readonly<Record<string, string>>,
): ServerTaskPath {
  const handlers = options.serverRequests ?? {};
  return {
    raw: link.raw,
    framing: {
      protocolVersion: link.protocolVersion,
      clientInfo: { ...options.clientInfo },
      clientCapabilities: clientCapabilities(handlers),
    },
    handlers,
    headers,
  };
}

/**
 * The `_meta` envelope of a request on `path` that declares the tasks extension, with `meta` (a
 * gateway client's own keys: its capabilities, its log level) in place of the host's where given.
 */
export function taskEnvelope(path: ServerTaskPath, meta: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const declared = (meta[CLIENT_CAPABILITIES_META_KEY] ?? path.framing.clientCapabilities) as { extensions?: Record<string, unknown> };
  return {
    ...meta,
    [PROTOCOL_VERSION_META_KEY]: path.framing.protocolVersion,
    [CLIENT_INFO_META_KEY]: path.framing.clientInfo,
    [CLIENT_CAPABILITIES_META_KEY]: { ...declared, extensions: { ...declared.extensions, [TASKS_EXTENSION]: {} } },
  };
}

/** Polls no faster than this, whatever the server suggests, and no slower than the slowest. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 5_000;
/** More open input requests than any task asks at once, and more than one asks in its life. */
const MAX_OPEN_INPUTS = 16;
const MAX_INPUTS = 1_000;
/** How long a cancelled task waits for the server to confirm tasks/cancel. */
const CANCEL_TIMEOUT_MS = 5_000;
const MAX_MESSAGE_CHARS = 500;

const STATUS = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
/** tasks/get's DetailedTask, as much of it as the follower reads; the rest passes unread. */
const DETAILED_TASK = z.looseObject({
  status: STATUS,
  statusMessage: z.string().optional(),
  pollIntervalMs: z.number().optional(),
  result: z.looseObject({}).optional(),
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string(), params: z.unknown().optional() })).optional(),
});

export interface FollowedTask {
  readonly server: string;
  readonly tool: string;
  readonly taskId: string;
}

export class ServerTaskFollower {
  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The task's result (a tool error is a result with isError); its failure as the server's JSON-RPC error. */
  async follow(
    task: FollowedTask,
    path: ServerTaskPath,
    registry: RunningTasks,
    signal: AbortSignal,
    onProgress: (progress: Progress) => void,
  ): Promise<CallToolResult> {
    const rpc = taskRpc(path, task.taskId);
    let slot: ReturnType<RunningTasks['reserve']>;
    try {
      slot = registry.reserve(task.tool);
    } catch (error) {
      // No room to follow it: the server is told, rather than left working for nobody.
      await this.cancel(rpc, task);
      throw error;
    }
    const ended = new AbortController();
    const stop = () => ended.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    // A caller that gave up before the task was made: the task is cancelled at the first step.
    if (signal.aborted) stop();
    slot.started(task.taskId, () => ended.abort(new SwitchboardError('CANCELLED', `the ${task.tool} task was cancelled`)));
    const asked = new Set<string>();
    let open = 0;
    let askFailed: unknown;
    const ask = (key: string, request: { method: string; params?: unknown }) => {
      asked.add(key);
      open += 1;
      answerForHost(path.handlers, key, request)
        .then((response) => rpc('tasks/update', { inputResponses: { [key]: response } }, ended.signal))
        .catch((error: unknown) => {
          if (!ended.signal.aborted) askFailed ??= error;
        })
        .finally(() => (open -= 1));
    };
    let step = 0;
    let last: string | undefined;
    /** The server ended the task itself: nothing to cancel. */
    let over = false;
    try {
      for (;;) {
        if (askFailed !== undefined) throw askFailed;
        const detail = DETAILED_TASK.safeParse(await rpc('tasks/get', {}, ended.signal));
        if (!detail.success)
          throw new SwitchboardError('PROTOCOL_ERROR', `tasks/get of the ${task.tool} task answered something that is not a task`);
        const current = detail.data;
        const message = current.statusMessage?.slice(0, MAX_MESSAGE_CHARS);
        slot.status(current.status, message);
        const shown = message ?? current.status;
        if (shown !== last) {
          last = shown;
          step += 1;
          onProgress({ progress: step, message: shown });
        }
        switch (current.status) {
          case 'completed':
            over = true;
            return withoutResultType(current.result ?? {});
          case 'failed':
            over = true;
            throw new ProtocolError(
              current.error?.code ?? -32603,
              current.error?.message ?? `the ${task.tool} task failed`,
              current.error?.data,
            );
          case 'cancelled':
            over = true;
            throw new SwitchboardError('CANCELLED', `the ${task.tool} task was cancelled by the server`);
          case 'input_required':
            for (const [key, request] of Object.entries(current.inputRequests ?? {})) {
              if (asked.has(key)) continue;
              if (open >= MAX_OPEN_INPUTS || asked.size >= MAX_INPUTS)
                throw new SwitchboardError(
                  'PROTOCOL_ERROR',
                  `the ${task.tool} task asks more than ${MAX_OPEN_INPUTS} things at once, or ${MAX_INPUTS} in all`,
                );
              ask(key, request);
            }
            break;
          case 'working':
            break;
        }
        await this.pause(clamp(current.pollIntervalMs), ended.signal);
      }
    } catch (error) {
      // The caller gave up, or the task was cancelled from the list of running tasks.
      const cancelled = ended.signal.aborted;
      if (!over) await this.cancel(rpc, task);
      if (!cancelled) throw error;
      throw isCancel(error) ? error : new SwitchboardError('CANCELLED', `the ${task.tool} task was cancelled`, { cause: error });
    } finally {
      // Asks still open are for a task that is over.
      if (!ended.signal.aborted) ended.abort(new SwitchboardError('CANCELLED', `the ${task.tool} task is over`));
      signal.removeEventListener('abort', stop);
      slot.release();
    }
  }

  private async cancel(rpc: TaskRpc, task: FollowedTask): Promise<void> {
    const deadline = new AbortController();
    const timer = this.clock.setTimeout(() => deadline.abort(new Error(`no answer within ${CANCEL_TIMEOUT_MS} ms`)), CANCEL_TIMEOUT_MS);
    try {
      await rpc('tasks/cancel', {}, deadline.signal);
    } catch (error) {
      this.logger.debug(`tasks/cancel of the ${task.tool} task ${task.taskId} on ${task.server} failed: ${errorMessage(error)}`);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const done = () => {
        this.clock.clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = this.clock.setTimeout(() => {
        signal.removeEventListener('abort', done);
        resolve();
      }, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

type TaskRpc = (method: string, params: Record<string, unknown>, until: AbortSignal) => Promise<unknown>;

/** A tasks/* request about one task on the raw path; the server's JSON-RPC error as a ProtocolError. */
function taskRpc(path: ServerTaskPath, taskId: string): TaskRpc {
  return async (method, params, until) => {
    const response = await path.raw.dispatch({ method, params: { ...params, taskId, _meta: taskEnvelope(path) } }, until, path.headers);
    if (response.kind === 'error') throw new ProtocolError(response.error.code, response.error.message, response.error.data);
    return response.result;
  };
}

function clamp(suggested: number | undefined): number {
  if (suggested === undefined || !Number.isFinite(suggested)) return 500;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, suggested));
}

function isCancel(error: unknown): boolean {
  return error instanceof SwitchboardError && error.code === 'CANCELLED';
}

/** The tool result as the call itself would have answered it. */
function withoutResultType(result: Record<string, unknown>): CallToolResult {
  const { resultType: _resultType, ...rest } = result;
  return { content: [], ...rest } as CallToolResult;
}
