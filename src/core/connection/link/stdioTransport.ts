// The stdio transport: spawns the server and speaks newline-delimited JSON-RPC over its stdin and
// stdout. Our own rather than the SDK's StdioClientTransport, which:
//  - passes only a whitelist of variables (HOME, PATH, ...) where servers expect the full
//    environment, as a terminal would give them;
//  - goes through cross-spawn, where we need our own tested Windows argv rules (spawnCommand.ts);
//  - kills only its direct child on close (an `npx` server's real process survives);
//  - drops non-JSON stdout lines after reporting a parse error, hides the exit code and signal,
//    and hands out stderr as a raw stream.
// It reuses the SDK's message schema and serialisation, so the wire format is the SDK's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { isJsonRpcMessage } from '../../base/jsonRpc';
import { MessageInbox, readLines } from './messageLines';
import { nullLogger, type Logger } from '../../base/logging';
import { SwitchboardError } from './errors';
import { DEFAULT_KILL_GRACE_MS, killProcessTree } from './processTree';
import { buildSpawnCommand } from './spawnCommand';
import { plainLaunch, resolveIsolatedLaunch, resolveSandboxedLaunch, searchPath, type StdioSandboxOptions } from './stdioLaunch';
import { errorMessage } from '../../base/errorMessage';

export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The complete environment of the child (process.env already merged in). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly platform?: NodeJS.Platform;
  readonly logger?: Logger;
  readonly onStderrLine?: (line: string) => void;
  readonly onSpawn?: (pid: number) => void;
  /** Each stdout line that is not a JSON-RPC message. */
  readonly onGarbageLine?: (line: string) => void;
  readonly killGraceMs?: number;
  /** Run the command in a sandbox with these rules; it does not start without one. */
  readonly sandbox?: StdioSandboxOptions;
  /** Unsandboxed, but kept apart from the host's secret files (SandboxPlacement.hostSecrets). */
  readonly isolation?: { readonly hidden: readonly string[] };
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How long to wait for stdout/stderr to drain after the process exits before reporting it. */
const DRAIN_AFTER_EXIT_MS = 200;
/**
 * How long a failed stdin write (EPIPE, ECONNRESET: the process closed its stdin, usually because
 * it is exiting) waits for the process to end before it rejects.
 */
const WRITE_ERROR_EXIT_WAIT_MS = 2000;
const MAX_GARBAGE_LINE = 200;

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private exit: ProcessExit | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  private markEnded: () => void = () => undefined;
  /** Resolves once onclose has fired: the process has exited and stdout/stderr are drained. */
  private readonly ended = new Promise<void>((resolve) => (this.markEnded = resolve));
  private readonly logger: Logger;
  /** Parsed messages not yet handed to onmessage, in the order the server wrote them. */
  private readonly inbox = new MessageInbox(
    (message) => {
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.logger.error(`handling a message from the server failed: ${errorMessage(error)}`);
      }
    },
    () => {
      if (this.closeAfterDrain) this.finish();
    },
  );
  /** onclose waits for the inbox: a result read before the exit must still reach its caller. */
  private closeAfterDrain = false;
  private established = false;
  /** Writes whose callback has not run: onclose waits for them, so each learns it failed first. */
  private pendingWrites = 0;

  constructor(private readonly options: StdioTransportOptions) {
    this.logger = options.logger ?? nullLogger;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * The child's stderr, as the SDK's StdioClientTransport exposes it. The v2 client recognises a
   * stdio transport by `stderr` and `pid` and negotiates the era accordingly: a server that does
   * not answer `server/discover` in time is a 2025 server (on HTTP, silence is an outage).
   */
  get stderr(): NodeJS.ReadableStream | null {
    return this.child?.stderr ?? null;
  }

  /**
   * Called once the handshake is done. From then on a message that cannot be written fails at
   * once (notSent), before the exit closes the transport: otherwise the SDK fails the request as
   * "connection closed", which does not say that it was never sent, and it could not be retried.
   */
  markEstablished(): void {
    this.established = true;
  }

  /** How the process ended, once it has. */
  get exitStatus(): ProcessExit | undefined {
    return this.exit;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('StdioProcessTransport already started');
    const { command, args, cwd, platform = process.platform } = this.options;
    if (!fs.existsSync(cwd)) {
      throw new SwitchboardError('ENOENT', `working directory \`${cwd}\` does not exist (cwd of command \`${command}\`)`);
    }
    const { sandbox, isolation } = this.options;
    const launch = sandbox
      ? await resolveSandboxedLaunch({ ...this.options, sandbox, platform })
      : isolation
        ? await resolveIsolatedLaunch({ ...this.options, isolation, platform })
        : plainLaunch(this.options);
    const spawnCommand = buildSpawnCommand(launch.command, launch.args, platform);
    this.logger.info(
      `starting ${[command, ...args].join(' ')} (cwd ${cwd}${spawnCommand.command !== command && !launch.note ? `, via ${spawnCommand.command}` : ''}${launch.note})`,
    );
    const child = spawn(spawnCommand.command, [...spawnCommand.args], {
      cwd,
      env: launch.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      windowsVerbatimArguments: spawnCommand.windowsVerbatimArguments,
    });
    this.child = child;
    // pid is set synchronously when the OS created the process (and stays unset for ENOENT).
    if (child.pid !== undefined) this.options.onSpawn?.(child.pid);

    let streamsOpen = 2;
    let drained: () => void = () => undefined;
    const allDrained = new Promise<void>((resolve) => (drained = resolve));
    const streamEnded = () => {
      streamsOpen -= 1;
      if (streamsOpen === 0) drained();
    };
    readLines(child.stdout, (line) => this.onStdoutLine(line), streamEnded);
    readline
      .createInterface({ input: child.stderr, crlfDelay: Infinity })
      .on('line', (line) => launch.onStderrLine?.(line))
      .on('close', streamEnded);
    child.stdin.on('error', (error) => this.logger.debug(`stdin: ${error.message}`));

    child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      this.logger.info(`process ${child.pid} exited (${signal ? `signal ${signal}` : `code ${code}`})`);
      // A grandchild holding our pipes open must not delay the report forever.
      void Promise.race([allDrained, new Promise((resolve) => setTimeout(resolve, DRAIN_AFTER_EXIT_MS))]).then(() => this.finish());
    });

    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) {
          this.onerror?.(error);
          return;
        }
        this.finish();
        reject(this.describeSpawnError(error));
      });
    });
  }

  private describeSpawnError(error: NodeJS.ErrnoException): SwitchboardError {
    const { command, env, cwd } = this.options;
    if (error.code !== 'ENOENT') {
      return new SwitchboardError('SPAWN_FAILED', `could not start \`${command}\`: ${error.message}`, { cause: error });
    }
    if (command.includes('/') || command.includes('\\')) {
      return new SwitchboardError('ENOENT', `command \`${command}\` not found (resolved against ${path.resolve(cwd, command)})`, {
        cause: error,
      });
    }
    // One folder per line, in search order: the first line says what is wrong, and the tooltip and
    // the log show every folder instead of a colon-joined line cut off mid-path.
    const folders = searchPath(env)
      .split(path.delimiter)
      .filter((folder) => folder !== '');
    const searched = folders.length === 0 ? '\nPATH is empty' : `\nSearched (PATH, in order):\n${folders.join('\n')}`;
    return new SwitchboardError('ENOENT', `command \`${command}\` not found on PATH${searched}`, { cause: error });
  }

  private onStdoutLine(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage | undefined;
    try {
      const parsed: unknown = JSON.parse(line);
      if (isJsonRpcMessage(parsed)) message = parsed;
    } catch {
      // Not JSON at all; reported below like JSON that is not JSON-RPC.
    }
    if (message === undefined) {
      // Reported through the option, not onerror: the SDK client does not pass transport errors on
      // while it negotiates the era, which is when banners are written.
      this.options.onGarbageLine?.(truncate(line, MAX_GARBAGE_LINE));
      return;
    }
    this.inbox.push(message);
  }

  private get busy(): boolean {
    return this.inbox.busy || this.pendingWrites > 0;
  }

  private finish(): void {
    if (this.closed) return;
    if (this.busy) {
      this.closeAfterDrain = true;
      return;
    }
    this.closed = true;
    this.markEnded();
    this.onclose?.();
  }

  /** Waits until the transport has ended (see `ended`), or `timeoutMs` have passed. */
  private async whenEnded(timeoutMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  private describeExit(): string {
    const exit = this.exit;
    if (!exit) return 'the server process is not running';
    return `the server process exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}`;
  }

  /**
   * Writes one message to the process's stdin. When the process is going away, it rejects only
   * once the exit has been reported (onclose, with stderr drained) or WRITE_ERROR_EXIT_WAIT_MS
   * have passed: whoever handles the rejection then sees `exitStatus` and the whole stderr, rather
   * than a bare `write EPIPE` that merely won the race against the exit event.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit || this.closed || !stdin.writable) {
      // An exited process is reported within DRAIN_AFTER_EXIT_MS; while connecting, wait for that
      // so the error can say how it exited.
      if (this.exit && !this.closed && !this.established) await this.whenEnded(WRITE_ERROR_EXIT_WAIT_MS);
      // notSent: the message never left this process, so the caller may send it again once the
      // server is back (ServerConnection does, within requestMs).
      throw new SwitchboardError('CONNECTION_LOST', `not connected: ${this.describeExit()}`, { notSent: true });
    }
    this.pendingWrites += 1;
    const failure = await new Promise<Error | undefined>((resolve) =>
      stdin.write(serializeMessage(message), (error) => {
        this.pendingWrites -= 1;
        resolve(error ?? undefined);
        if (this.closeAfterDrain && !this.busy) setImmediate(() => this.finish());
      }),
    );
    if (failure === undefined) return;
    this.logger.debug(`writing to stdin failed (${failure.message})`);
    if (!this.established) await this.whenEnded(WRITE_ERROR_EXIT_WAIT_MS);
    const detail = this.exit ? `: ${this.describeExit()}` : '';
    // A failed write (EPIPE: the process closed its stdin) was not read by anyone.
    throw new SwitchboardError('CONNECTION_LOST', `cannot write to the server's stdin (${failure.message})${detail}`, {
      cause: failure,
      notSent: true,
    });
  }

  /** Ends the process tree (SIGTERM, SIGKILL after the grace period). Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    const child = this.child;
    if (child?.pid !== undefined && !this.exit) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      // Closing stdin is the polite MCP shutdown; killProcessTree has already gathered the tree
      // before it sends anything, so children cannot escape by being re-parented.
      await killProcessTree(child.pid, {
        graceMs: this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
        logger: this.logger,
        platform: this.options.platform,
        onGathered: () => child.stdin?.end(),
      });
      await exited;
    }
    this.finish();
  }
}
