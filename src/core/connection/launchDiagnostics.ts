// What a failed or lost connection is explained with: a stdio server's stderr (kept across
// restarts, redacted) and the lines it wrote to stdout that are not JSON-RPC. A server that prints
// banners to stdout usually fails by timing out or exiting; the real cause is the output, so that
// is what the error says.
import os from 'node:os';
import { errorMessage } from '../base/errorMessage';
import { redactSecrets, type Logger } from '../base/logging';
import { sandboxOf, type ServerDefinition } from '../config';
import {
  type StdioLaunch,
  type SandboxPlacement,
  SwitchboardError,
  isConnectionFailure,
  type ConnectionErrorCode,
  type ConnectionFailure,
} from './link';
import { LineRingBuffer } from './lineRingBuffer';
import { deniedTarget, downloadingLauncher } from '../sandbox';
import type { McpSession } from './session';

export interface LaunchOptions {
  /** Lines of stderr kept. Default 1000. */
  readonly stderrLines?: number;
  /** Working directory for a stdio server without `cwd`. Defaults to the user's home directory. */
  readonly defaultCwd?: string;
  /** Environment the definition's `env` is laid over. Defaults to process.env. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** For the Windows command rules; defaults to process.platform. */
  readonly platform?: NodeJS.Platform;
  /** Time between SIGTERM and SIGKILL when ending a stdio process tree. Default 2000. */
  readonly killGraceMs?: number;
  /** Where sandboxes come from: the runtime, the per-server folders, the tools (the editor's ripgrep). */
  readonly sandbox?: SandboxPlacement;
  /** Each line a stdio server writes to stderr (redacted), by server: the machine host hands them to the windows using it. */
  readonly onServerStderr?: (server: string, line: string) => void;
}

/** One connect attempt's launch, and how it explains its failure. */
export interface AttemptLaunch {
  readonly stdio: StdioLaunch;
  explain(error: unknown): ConnectionFailure;
}

const STDERR_TAIL_IN_ERROR = 20;
const HINTED_BY_GARBAGE: readonly ConnectionErrorCode[] = ['CONNECT_TIMEOUT', 'PROCESS_EXITED', 'CONNECTION_LOST'];
const HINTED_BY_STDERR: readonly ConnectionErrorCode[] = ['PROCESS_EXITED', 'CONNECT_TIMEOUT', 'PROTOCOL_ERROR', 'CONNECTION_LOST'];

export class LaunchDiagnostics {
  private readonly stderr: LineRingBuffer;

  constructor(
    private readonly definition: ServerDefinition,
    private readonly logger: Logger,
    private readonly options: LaunchOptions,
  ) {
    this.stderr = new LineRingBuffer(options.stderrLines ?? 1000);
  }

  /** The last `count` stderr lines of the stdio server (across restarts), oldest first. */
  stderrTail(count?: number): string[] {
    return this.stderr.tail(count);
  }

  /** What an error state shows of stderr: its last lines for a stdio server, nothing for HTTP. */
  errorTail(): string[] {
    // A server shared through the machine host: the host hands its copy's stderr on when it failed.
    const hosted = this.definition.transport !== 'stdio' && this.definition.hosted !== undefined;
    return this.definition.transport === 'stdio' || hosted ? this.stderr.tail(STDERR_TAIL_IN_ERROR) : [];
  }

  /**
   * The `host:port` the sandbox last refused this attempt, from the sandbox's own lines; undefined
   * for an unsandboxed server (its stderr has none: a look-alike is its own).
   */
  sandboxDenied(): string | undefined {
    // A sandboxed server in the machine host: the host hands its copy's stderr on, the sandbox's lines among it.
    if (sandboxOf(this.definition) === undefined) return undefined;
    return this.stderr
      .tail(this.stderr.size)
      .map(deniedTarget)
      .filter((target) => target !== undefined)
      .at(-1);
  }

  /** The launch of one attempt; what it writes to stdout that is not JSON-RPC is kept for its failure. */
  launch(onSpawn: (pid: number) => void, restart = false): AttemptLaunch {
    const definition = this.definition;
    // Only the first line is quoted in an error: a server spamming stdout costs nothing more.
    let firstGarbage: string | undefined;
    const stdio: StdioLaunch = {
      env: { ...(this.options.baseEnv ?? process.env), ...(definition.transport === 'stdio' ? definition.env : {}) },
      cwd: (definition.transport === 'stdio' ? definition.cwd : undefined) ?? this.options.defaultCwd ?? os.homedir(),
      platform: this.options.platform ?? process.platform,
      killGraceMs: this.options.killGraceMs,
      onSpawn,
      restartShared: restart,
      onRestart: () => {
        this.stderr.clear();
        firstGarbage = undefined;
      },
      onGarbageLine: (line: string) => {
        firstGarbage ??= line;
        this.logger.warn(`server wrote a line to stdout that is not a JSON-RPC message: "${line}"`);
      },
      onStderrLine: (line: string) => {
        const redacted = redactSecrets(line, definition.secrets);
        this.stderr.push(redacted);
        this.logger.info(`stderr: ${line}`);
        this.options.onServerStderr?.(definition.name, redacted);
      },
      // In the stderr tail too, so that an error or the tooltip shows why a tool failed.
      onSandboxDenial: (text: string) => {
        this.stderr.push(redactSecrets(text, definition.secrets));
        this.logger.warn(text);
      },
      sandboxPlacement: this.options.sandbox,
    };
    return { stdio, explain: (error) => this.withStderrHint(withGarbageHint(asConnectionFailure(error), firstGarbage)) };
  }

  /** Why a running session ended: the process's exit, or the connection closing. */
  describeClose(session: McpSession): ConnectionFailure {
    if (session.hostFailure) return session.hostFailure;
    const exit = session.exitStatus;
    const how = exit
      ? `the server process exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}`
      : 'the connection closed';
    return this.withStderrHint(new SwitchboardError('CONNECTION_LOST', how));
  }

  /**
   * Adds the last stderr line to messages about a stdio process that died or never answered; when
   * the sandbox refused it a connection, that refusal instead: it is the cause, and the server's
   * own last words (npm's "You can rerun…") are not.
   */
  private withStderrHint(error: ConnectionFailure): ConnectionFailure {
    const definition = this.definition;
    if (definition.transport !== 'stdio' || !HINTED_BY_STDERR.includes(error.code)) return error;
    const denied = this.sandboxDenied();
    const last = this.stderr.tail(1)[0];
    let message: string | undefined;
    if (denied !== undefined) {
      // The cause first: the notice and the tooltip lead with it.
      const launcher = downloadingLauncher(definition.command);
      const note = launcher ? ` (${launcher} downloads the server before it runs it)` : '';
      message = `sandbox denied network access to ${denied}${note}; ${error.message}`;
    } else if (last !== undefined && !error.message.includes(last)) message = `${error.message}. Last stderr line: ${last}`;
    if (message === undefined) return error;
    return new SwitchboardError(error.code, message, {
      cause: error.cause,
      status: error.status,
      notSent: error.notSent,
    });
  }
}

function asConnectionFailure(error: unknown): ConnectionFailure {
  return isConnectionFailure(error) ? error : new SwitchboardError('CONNECT_FAILED', errorMessage(error), { cause: error });
}

function withGarbageHint(error: ConnectionFailure, first: string | undefined): ConnectionFailure {
  if (first === undefined || !HINTED_BY_GARBAGE.includes(error.code)) return error;
  return new SwitchboardError(
    'PROTOCOL_ERROR',
    `${error.message}. The server wrote output to stdout that is not JSON-RPC ("${first}"); a stdio server must write only JSON-RPC messages to stdout and log to stderr`,
    { cause: error },
  );
}
