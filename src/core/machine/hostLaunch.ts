// Starting a host process for a window or an agent that found none: detached, so that it outlives
// whoever started it (it ends by itself once its last client has gone), writing to a log in the
// private folder. `serve --stdio` and the editor launch the same CLI; only how they run it differs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Logger } from '../base/logging';
import { errorMessage } from '../base/errorMessage';
import { HOST_MARKER } from './machineHost';
import type { HostPlace } from './hostPlace';

/**
 * How the CLI runs Node for an agent (the launcher Share writes, and the CLI's own shebang in
 * scripts/cliBuild.mjs, which says why): a young generation of 1 MiB. An agent's `serve --stdio`
 * is a process of small messages; 1 MiB instead of 2 holds 10 MB less (with 10 servers: PSS 36
 * against 46 MB) at the same latency and throughput (bench/RESULTS.md).
 */
export const CLI_NODE_FLAGS = ['--max-semi-space-size=1'];
/**
 * The host keeps 2 MiB: it builds every window's sessions at once, and with 1 MiB it held 2-3 MB
 * less while a second window's sessions took longer to open (bench:host, 2026-11-30).
 */
const HOST_NODE_FLAGS = ['--max-semi-space-size=2'];
/** The log is started afresh past this size: hosts come and go, and none needs another's old lines. */
const MAX_LOG_BYTES = 1024 * 1024;

export interface HostCommand {
  /** The program: Node, or the editor's own runtime with ELECTRON_RUN_AS_NODE. */
  readonly command: string;
  /** Up to the CLI's script: `host --machine-host` is added. */
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

/** A launch for HostLink: starts `cli host --machine-host`, detached; a failure to spawn is logged, and the link's wait tells the rest. */
export function hostLauncher(place: HostPlace, command: HostCommand, logger: Logger): () => void {
  return () => {
    let log: number | undefined;
    try {
      const size = fs.statSync(place.log, { throwIfNoEntry: false })?.size ?? 0;
      log = fs.openSync(place.log, size > MAX_LOG_BYTES ? 'w' : 'a', 0o600);
      const child = spawn(command.command, [...HOST_NODE_FLAGS, ...command.args, 'host', HOST_MARKER], {
        detached: true,
        stdio: ['ignore', log, log],
        env: command.env,
        windowsHide: true,
      });
      child.on('error', (error) => logger.warn(`machine host: could not start ${command.command}: ${errorMessage(error)}`));
      child.unref();
    } catch (error) {
      logger.warn(`machine host: could not start one: ${errorMessage(error)}`);
    } finally {
      if (log !== undefined) fs.closeSync(log);
    }
  };
}
