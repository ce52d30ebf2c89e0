// A sandboxed server's stderr carries the sandbox runtime's own debug lines besides the server's.
// They are not the server's output: most are dropped, so that the stderr tail shows what the server
// said. A denial of network access is kept, as one readable line, so that a user who sees a tool fail
// learns why. (Linux reports no file-system denials: a refused write is the server's own EROFS or
// EACCES error, which the server's stderr or the tool's result carries.)

const DEBUG_PREFIX = '[SandboxDebug]';
/** `Connection blocked to host:port`, `HTTP request blocked to host:port` (proxy and SOCKS). */
const BLOCKED = /\b(?:Connection|HTTP request) blocked to (\S+)/;
const MAX_HOST = 300;
const DENIAL_PREFIX = 'sandbox: denied network access to ';

export type SandboxStderrLine =
  /** The server's own line (or the runtime's error, which is not a debug line). */
  | { readonly kind: 'server'; readonly text: string }
  /** The sandbox refused a connection: what to show and log. */
  | { readonly kind: 'denial'; readonly text: string }
  /** The runtime's debug chatter: dropped. */
  | { readonly kind: 'runtime' };

export function classifySandboxStderr(line: string): SandboxStderrLine {
  const start = line.indexOf(DEBUG_PREFIX);
  // A server's own line that reads like a denial is marked as the server's: only the sandbox's own
  // denials may offer to allow a host.
  if (start === -1) return { kind: 'server', text: line.startsWith(DENIAL_PREFIX) ? `(the server wrote) ${line}` : line };
  const blocked = BLOCKED.exec(line.slice(start));
  if (!blocked?.[1]) return { kind: 'runtime' };
  const target = blocked[1].slice(0, MAX_HOST);
  return { kind: 'denial', text: `${DENIAL_PREFIX}${target} (not in sandbox.network.allowedDomains, or in deniedDomains)` };
}

/** The `host:port` of a denial line this filter wrote (in a stderr tail), or undefined for any other line. */
export function deniedTarget(line: string): string | undefined {
  if (!line.startsWith(DENIAL_PREFIX)) return undefined;
  return line.slice(DENIAL_PREFIX.length).split(' ', 1)[0] || undefined;
}

/** The host of a `host:port` target (`[::1]:443` → `::1`), as `sandbox.network.allowedDomains` names it. */
export function hostOfTarget(target: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(target);
  if (bracketed?.[1]) return bracketed[1];
  return target.replace(/:\d+$/, '');
}

/** Launchers that download what they run before running it: a sandbox without network stops them first. */
const DOWNLOADERS = new Set(['npx', 'uvx', 'bunx', 'pnpx', 'pnpm', 'yarn', 'pipx', 'bun', 'uv']);

/** The launcher's name when `command` downloads packages (npx, uvx, pnpm dlx, bunx…), for a failure's explanation. */
export function downloadingLauncher(command: string): string | undefined {
  const name = command
    .split(/[\\/]/)
    .pop()
    ?.replace(/\.(cmd|exe)$/i, '');
  return name !== undefined && DOWNLOADERS.has(name) ? name : undefined;
}

/** A debug message that is a pretty-printed JSON value spans lines; only its first has the prefix. */
const OPENS_BLOCK = /^\s*\[SandboxDebug\].*([{[])\s*$/;
/** Past this, a block that never closed was not one: lines are the server's again. */
const MAX_BLOCK_LINES = 500;

/** Turns a sandboxed server's raw stderr lines into the lines to keep; denials are also reported. */
export function sandboxStderrFilter(onLine: (line: string) => void, onDenial: (text: string) => void): (line: string) => void {
  let lastDenial = '';
  let closer: string | undefined;
  let blockLines = 0;
  return (line) => {
    if (closer !== undefined) {
      blockLines += 1;
      if (line === closer || blockLines > MAX_BLOCK_LINES) closer = undefined;
      if (blockLines <= MAX_BLOCK_LINES) return;
    }
    const opens = OPENS_BLOCK.exec(line);
    if (opens) {
      closer = opens[1] === '{' ? '}' : ']';
      blockLines = 0;
    }
    const classified = classifySandboxStderr(line);
    switch (classified.kind) {
      case 'server':
        onLine(classified.text);
        return;
      case 'denial':
        // The proxy logs a refused request more than once (the connection, then the request).
        if (classified.text === lastDenial) return;
        lastDenial = classified.text;
        onDenial(classified.text);
        return;
      case 'runtime':
        return;
    }
  };
}

/**
 * The runtime's start-up failures that a second try heals: on a busy machine its proxy bridges
 * (socat) may not have made their sockets within the runtime's own short wait. Matched on the
 * runtime's messages (@anthropic-ai/sandbox-runtime 0.0.x), which reach us as the last stderr line.
 */
const TRANSIENT_START =
  /Failed to create bridge sockets after \d+ attempts|Linux bridge process died unexpectedly|Failed to start (?:HTTP|SOCKS) bridge process/;

export function isTransientSandboxStart(message: string): boolean {
  return TRANSIENT_START.test(message);
}
