// What a 2025-era client of the gateway can answer while one of its requests is being served:
// the upstream server's elicitation, sampling and roots requests go back on that client's session
// (the editor then shows its own form or asks for its own model access). Only what the client
// declared is relayed; the rest is answered by the host (connection/rounds/relayRouter.ts).
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { RelayRouter, Relay, CallerOptions } from '../../connection';
import type { CallBridge } from './callBridge';
import { clientKeyOf } from './clientRounds';

/**
 * Runs `run(options, ...args)` for a request to `upstream`, relaying what the upstream asks to the
 * client that sent it where it can. The arguments are passed, not closed over, so that a call
 * crosses no frame here but this one.
 */
export type RelayedRun = <A extends unknown[], T>(
  upstream: string,
  ctx: ServerContext,
  run: (options: CallerOptions, ...args: A) => Promise<T>,
  options: CallerOptions,
  ...args: A
) => Promise<T>;

/** Where a relayed request goes out: a request of the client's (its own call, or a task's tasks/result). */
export type RelayChannel = Pick<ServerContext['mcpReq'], 'elicitInput' | 'requestSampling'>;

/** What this 2025 session's client declared it answers, sent out through `channel`. */
export function sessionRelay(server: Server, channel: RelayChannel): Relay | undefined {
  const capabilities = server.getClientCapabilities();
  if (!capabilities) return undefined;
  const elicitation = capabilities.elicitation as { form?: unknown; url?: unknown } | undefined;
  return {
    ...(elicitation
      ? {
          elicit: (params) => {
            // A client that declared form mode only (or nothing, which means form) cannot show a URL.
            const mode = (params as { mode?: string }).mode ?? 'form';
            const supports =
              mode === 'url' ? elicitation.url !== undefined : elicitation.form !== undefined || elicitation.url === undefined;
            if (!supports) return undefined;
            return channel.elicitInput(params as Parameters<RelayChannel['elicitInput']>[0]);
          },
        }
      : {}),
    ...(capabilities.sampling ? { sample: (params) => channel.requestSampling(params) as ReturnType<NonNullable<Relay['sample']>> } : {}),
    ...(capabilities.roots ? { listRoots: () => server.listRoots() } : {}),
  };
}

/**
 * The `RelayedRun` of one session server: a 2025 client's requests relay on its session; a
 * 2026-07-28 client's go back to it as rounds of its own request where it declared what they ask
 * (callBridge.ts, clientRounds.ts); the host answers the rest.
 */
export function sessionRelayedRun(server: Server, relays: RelayRouter, bridge: CallBridge | undefined): RelayedRun {
  return (upstream, ctx, run, options, ...args) => {
    if (ctx.mcpReq.envelope !== undefined)
      return bridge && options.rounds
        ? (bridge.run(upstream, options, ctx.mcpReq.signal, (sent) => run(sent, ...args), clientKeyOf(ctx)) as ReturnType<typeof run>)
        : run(options, ...args);
    return relays.run(upstream, sessionRelay(server, ctx.mcpReq), run, options, ...args);
  };
}
