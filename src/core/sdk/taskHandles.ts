// The one place Switchboard overrides the SDK's server: a gateway's tools/call may answer with a
// task handle (CreateTaskResult, either revision), which the SDK's Server refuses, since it checks
// every tools/call result against CallToolResult. Its documented hook for subclasses
// (`_wrapHandler`) lets a marked handle through; requests are still validated, and every other
// result is still checked.
import { Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';

/** A tools/call answer that is a task handle (either revision's CreateTaskResult), not a tool result. */
const taskHandles = new WeakSet<object>();
export function asTaskHandle<T extends object>(result: T): T {
  taskHandles.add(result);
  return result;
}

/** Carries a task handle past the SDK's tools/call result check, which knows only CallToolResult. */
class TaskHandleAnswer extends Error {
  constructor(readonly result: Result) {
    super('a task handle');
  }
}

/**
 * A server whose tools/call may answer with a task handle: the handler passes its answer through
 * `taskHandlePast`, which throws a marked handle past the SDK's check, and it is caught here.
 */
export class TaskReceivingServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        if (error instanceof TaskHandleAnswer) return error.result;
        throw error;
      }
    };
  }
}

/** A tools/call handler's answer as a TaskReceivingServer takes it: a task handle is thrown past the SDK's check. */
export function taskHandlePast<T extends object>(answer: T): T {
  if (taskHandles.has(answer)) throw new TaskHandleAnswer(answer as Result);
  return answer;
}
