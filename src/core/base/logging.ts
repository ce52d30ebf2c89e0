// Logging seam for src/core. The editor adapter backs it with an output channel; tests back it with
// memory. Everything core logs about a server can contain secrets (argv, headers, stderr), so
// callers wrap the logger they are given with `redactingLogger` before writing anything.

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  /**
   * Whether a message at `level` would be written. Optional: a logger without it writes
   * everything. Callers check it before building costly messages (a JSON-RPC trace).
   */
  enabled?(level: LogLevel): boolean;
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];

export const REDACTED = '***';

const noop = (): void => undefined;

/** A logger that drops everything, for callers that were not given one. */
export const nullLogger: Logger = { enabled: () => false, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

/**
 * Replaces every occurrence of every secret with `***`. Longer secrets go first so that a secret
 * containing a shorter one is not left half-visible.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text;
  let result = text;
  for (const secret of [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) {
    result = result.split(secret).join(REDACTED);
  }
  return result;
}

/** Wraps `logger` so that every message is redacted and, when given, prefixed. */
export function redactingLogger(logger: Logger, secrets: readonly string[], prefix = ''): Logger {
  const wrap = (level: LogLevel) => (message: string) => logger[level](prefix + redactSecrets(message, secrets));
  return {
    enabled: (level) => isEnabled(logger, level),
    trace: wrap('trace'),
    debug: wrap('debug'),
    info: wrap('info'),
    warn: wrap('warn'),
    error: wrap('error'),
  };
}

export function isEnabled(logger: Logger, level: LogLevel): boolean {
  return logger.enabled?.(level) ?? true;
}
