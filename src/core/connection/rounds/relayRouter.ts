// Who answers what a server asks of its client (elicitation, sampling, roots). A request a server
// makes while serving a client's request of the gateway goes back to that client (the editor then
// shows its own form, or asks for its own model access); anything else is answered by the host
// itself (the editor's form and consent dialogs, the `serve` folder as root, or a refusal that
// says why on the CLI).
//
// Which client request a server request belongs to: the SDK runs a 2026-07-28 `input_required`
// round inside the call that got it, and a 2025 request over streamable HTTP arrives on that
// call's response stream, so the call's async context (AsyncLocalStorage) names it. A 2025 stdio
// server's request arrives on the process's stdout, outside any call; it is taken to belong to
// the one relayed call in flight to that server, and when several are in flight nobody can tell
// which, so the host answers it.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ProtocolError,
  ProtocolErrorCode,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type ListRootsResult,
} from '@modelcontextprotocol/client';
import type { ServerRequestHandlers } from '../link';
import type { InputKind } from './inputRounds';

/**
 * A relay: what a client of the gateway can answer, for the duration of one of its requests. The
 * one noun for routing a server's request back to its client: a `Relay` is made per client request
 * (`sessionRelay` for a 2025 session, `askingRelay` for a 2026-07-28 call's rounds) and put in place
 * for a request by `RelayRouter.run`.
 */
export interface Relay {
  /** Undefined when this client cannot show what is asked (a URL to a form-only client). */
  readonly elicit?: (params: ElicitRequest['params']) => Promise<ElicitResult> | undefined;
  readonly sample?: (params: CreateMessageRequest['params']) => Promise<CreateMessageResult>;
  readonly listRoots?: () => Promise<ListRootsResult>;
}

/** A relay that asks `ask` for the kinds a client declared; the host answers the rest. */
export function askingRelay(declared: ReadonlySet<InputKind>, ask: (kind: InputKind, params: unknown) => Promise<unknown>): Relay {
  return {
    ...(declared.has('elicitation') ? { elicit: (params) => ask('elicitation', params) as ReturnType<NonNullable<Relay['elicit']>> } : {}),
    ...(declared.has('sampling') ? { sample: (params) => ask('sampling', params) as ReturnType<NonNullable<Relay['sample']>> } : {}),
    ...(declared.has('roots') ? { listRoots: () => ask('roots', {}) as ReturnType<NonNullable<Relay['listRoots']>> } : {}),
  };
}

/** How the host answers a server itself; `server` is the configured name, for dialogs and consent. */
export interface HostAnswers {
  /** `signal` ends when the request is withdrawn: the form goes away. */
  readonly elicit?: (server: string, params: ElicitRequest['params'], signal?: AbortSignal) => Promise<ElicitResult>;
  readonly sample?: (server: string, params: CreateMessageRequest['params']) => Promise<CreateMessageResult>;
  readonly listRoots?: (server: string) => Promise<ListRootsResult>;
  /** Why the host cannot answer a kind it has no handler for (the CLI says so). */
  readonly refusal?: (kind: 'elicitation' | 'sampling' | 'roots') => string;
}

/** A relay in place for one request to `server`. */
interface RelayInPlace {
  readonly server: string;
  readonly relay: Relay;
}

export class RelayRouter {
  private readonly scope = new AsyncLocalStorage<RelayInPlace>();
  /** Relayed requests in flight, per server: the fallback for requests outside any call. */
  private readonly inFlight = new Map<string, Set<RelayInPlace>>();
  private host: HostAnswers;

  constructor(host: HostAnswers = {}) {
    this.host = host;
  }

  /** What the host answers itself (a gateway client's upstream is told so, for what the client did not declare). */
  hostKinds(): ReadonlySet<InputKind> {
    const { elicit, sample, listRoots } = this.host;
    return new Set<InputKind>([
      ...(elicit ? ['elicitation' as const] : []),
      ...(sample ? ['sampling' as const] : []),
      ...(listRoots ? ['roots' as const] : []),
    ]);
  }

  /** The editor sets its dialogs once its UI exists. */
  setHostAnswers(host: HostAnswers): void {
    this.host = host;
  }

  /**
   * Runs a client's request to `server` so that what the server asks meanwhile goes to `relay`; without
   * one (a client that answers nothing), just runs it. The arguments are passed, not closed over: the
   * call path gains no frame of its own here.
   */
  run<A extends unknown[], T>(server: string, relay: Relay | undefined, run: (...args: A) => Promise<T>, ...args: A): Promise<T> {
    if (!relay) return run(...args);
    const entry: RelayInPlace = { server, relay };
    let set = this.inFlight.get(server);
    if (!set) this.inFlight.set(server, (set = new Set()));
    set.add(entry);
    const done = () => {
      set.delete(entry);
      if (set.size === 0 && this.inFlight.get(server) === set) this.inFlight.delete(server);
    };
    return this.scope.run(entry, run, ...args).finally(done);
  }

  /**
   * The handlers one server's connection gets. Every capability is declared: the router decides
   * per request who answers, and a request nobody can answer fails with the reason.
   */
  handlersFor(server: string): ServerRequestHandlers {
    return {
      elicit: (params, signal) => {
        const relayed = this.relayFor(server)?.elicit?.(params);
        if (relayed) return relayed;
        const host = this.host.elicit;
        return host ? host(server, params, signal) : Promise.reject(this.refuse('elicitation', server));
      },
      sample: (params) => {
        const relay = this.relayFor(server)?.sample;
        if (relay) return relay(params);
        const host = this.host.sample;
        return host ? host(server, params) : Promise.reject(this.refuse('sampling', server));
      },
      listRoots: () => {
        const relay = this.relayFor(server)?.listRoots;
        if (relay) return relay();
        const host = this.host.listRoots;
        return host ? host(server) : Promise.resolve({ roots: [] });
      },
    };
  }

  /** The relay of the client request this server request belongs to, if one can be told. */
  private relayFor(server: string): Relay | undefined {
    const flying = this.inFlight.get(server);
    const current = this.scope.getStore();
    // Only while its request runs: a server started by a call (a lazy one woken) has its streams,
    // and so every later request it makes, in that call's context long after the call ended.
    if (current?.server === server && flying?.has(current)) return current.relay;
    if (flying?.size === 1) return [...flying][0]?.relay;
    return undefined;
  }

  private refuse(kind: 'elicitation' | 'sampling', server: string): ProtocolError {
    const why = this.host.refusal?.(kind) ?? `nothing here can answer ${kind} requests`;
    return new ProtocolError(ProtocolErrorCode.InvalidRequest, `Switchboard declined the ${kind} request of server "${server}": ${why}`);
  }
}
