// Hard limits on configuration size. A settings file is user input that the extension host parses
// on every change, so a pasted megabyte or a generated list of 10k arguments must turn into a
// diagnostic quickly instead of freezing the host or reaching a spawned process.

/** Any single string (argument, env value, header, url, path) before and after variable expansion. */
export const MAX_STRING_LENGTH = 64 * 1024;

/** `args` entries per server. */
export const MAX_ARGS = 1000;

/** Keys in `env`, `headers` and the envFile, and entries in `tools.allow` / `tools.deny`. */
export const MAX_MAP_ENTRIES = 1000;

/** Server names appear in tool names, tree items and log lines. */
export const MAX_NAME_LENGTH = 256;

/** Configuration files (mcp.json, Claude/Cursor configs, settings.json, envFile). */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** Diagnostics reported per server; the rest are summarised in one extra line. */
export const MAX_DIAGNOSTICS_PER_SERVER = 50;

/** Node's timers overflow above 2^31-1 ms and then fire after 1 ms, so larger timeouts are refused. */
export const MAX_TIMER_MS = 2_147_483_647;

export const MAX_RECONNECT_ATTEMPTS = 1000;

/** `idleStopMinutes`: a week; MAX_TIMER_MS would allow about 24 days, and nobody means more. */
export const MAX_IDLE_STOP_MINUTES = 7 * 24 * 60;
