// `mcp-switchboard host --machine-host`: the machine host of this OS user (core/machine). Windows
// and agents start it, detached, when they find none; it ends by itself once the last of them has
// been gone for the grace period. Started by hand it does the same: a second one ends at once,
// saying which is the host.
import { parseArgs } from 'node:util';
import { PRODUCT_VERSION } from '../base/version';
import { HOST_MARKER, hostPlace, MachineHost, HostPlaceError } from '../machine';
import { HostedServers } from '../sharing';
import { streamLogger } from './serve';

/** The grace period, for a host started by a window or an agent (which passes no flag): tests shorten it. */
const GRACE_ENV = 'MCP_SWITCHBOARD_HOST_GRACE_MS';

export const HOST_USAGE = `Usage: mcp-switchboard host ${HOST_MARKER} [--grace-ms MS]

Runs the machine host: one per user, which windows and agents attach to, and which runs each of
the user-level servers they share once. Its socket, token and
lock are in $XDG_RUNTIME_DIR/mcp-switchboard (else <tmpdir>/mcp-switchboard-<uid>; a folder only
you may enter: it is refused otherwise). It ends once no client has been attached for --grace-ms
(default 10000, or $MCP_SWITCHBOARD_HOST_GRACE_MS). Exit codes: 0 it ended, or another process is the host; 2 the folder is refused or
the command line is wrong.
`;

export async function runHost(
  argv: readonly string[],
  io: { err(text: string): void; stderr: NodeJS.WritableStream },
  options: { signal: AbortSignal; env?: NodeJS.ProcessEnv },
): Promise<number> {
  let graceMs: number | undefined;
  try {
    const { values } = parseArgs({
      args: [...argv],
      strict: true,
      options: { 'machine-host': { type: 'boolean' }, 'grace-ms': { type: 'string' } },
    });
    const grace = values['grace-ms'] ?? options.env?.[GRACE_ENV] ?? process.env[GRACE_ENV];
    if (grace !== undefined) {
      graceMs = Number(grace);
      if (!Number.isInteger(graceMs) || graceMs < 0) throw new Error('--grace-ms takes a whole number of milliseconds');
    }
  } catch (error) {
    io.err(`mcp-switchboard host: ${(error as Error).message}\n${HOST_USAGE}`);
    return 2;
  }
  const logger = streamLogger(io.stderr, 'info', 'text');
  let host;
  try {
    host = await MachineHost.start({
      place: hostPlace(options.env),
      version: PRODUCT_VERSION,
      logger,
      graceMs,
      services: (token) => new HostedServers({ token, logger }),
    });
  } catch (error) {
    if (!(error instanceof HostPlaceError)) throw error;
    logger.error(error.message);
    return 2;
  }
  if (!(host instanceof MachineHost)) {
    logger.info(`not starting a machine host: ${host.why}`);
    return 0;
  }
  const { signal } = options;
  if (signal.aborted) void host.close();
  else signal.addEventListener('abort', () => void host.close(), { once: true });
  await host.closed;
  return 0;
}
