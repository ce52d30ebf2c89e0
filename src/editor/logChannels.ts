import * as vscode from 'vscode';
import type { Logger, LogLevel } from '../core/base/logging';

/**
 * One main channel plus one `LogOutputChannel` per server ("MCP Switchboard: <name>"), created on
 * first use so that an empty configuration adds no channels. The core redacts secrets before it
 * logs; these adapters only forward.
 */
export class LogChannels implements vscode.Disposable {
  readonly main: vscode.LogOutputChannel;
  private readonly perServer = new Map<string, vscode.LogOutputChannel>();

  constructor() {
    this.main = vscode.window.createOutputChannel('MCP Switchboard', { log: true });
  }

  server(name: string): vscode.LogOutputChannel {
    let channel = this.perServer.get(name);
    if (!channel) {
      channel = vscode.window.createOutputChannel(`MCP Switchboard: ${name}`, { log: true });
      this.perServer.set(name, channel);
    }
    return channel;
  }

  serverLogger(name: string): Logger {
    return asLogger(this.server(name));
  }

  get mainLogger(): Logger {
    return asLogger(this.main);
  }

  /** Channels of servers that are no longer configured go away with them. */
  retain(names: ReadonlySet<string>): void {
    for (const [name, channel] of this.perServer) {
      if (names.has(name)) continue;
      channel.dispose();
      this.perServer.delete(name);
    }
  }

  dispose(): void {
    for (const channel of this.perServer.values()) channel.dispose();
    this.perServer.clear();
    this.main.dispose();
  }
}

const LEVELS: Record<LogLevel, vscode.LogLevel> = {
  trace: vscode.LogLevel.Trace,
  debug: vscode.LogLevel.Debug,
  info: vscode.LogLevel.Info,
  warn: vscode.LogLevel.Warning,
  error: vscode.LogLevel.Error,
};

export function asLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    // vscode.LogLevel orders Off(0) < Trace(1) < ... < Error(5); a message is shown at or above it.
    enabled: (level) => channel.logLevel !== vscode.LogLevel.Off && channel.logLevel <= LEVELS[level],
    trace: (message) => channel.trace(message),
    debug: (message) => channel.debug(message),
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message) => channel.error(message),
  };
}
