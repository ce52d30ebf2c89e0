// `--call SERVER/TOOL --args JSON`. Both halves are checked before anything is spawned, so a typo
// costs nothing; which `/` separates server from tool is settled once the server names are known.

export interface CallRequest {
  /** As typed: `server/tool`. */
  readonly target: string;
  readonly args: Record<string, unknown>;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

export function parseCallRequest(target: string, argsText: string | undefined): Parsed<CallRequest> {
  const slash = target.indexOf('/');
  if (slash <= 0 || slash === target.length - 1) {
    return { ok: false, message: `--call expects SERVER/TOOL, got "${target}"` };
  }
  const args = parseCallArgs(argsText);
  return args.ok ? { ok: true, value: { target, args: args.value } } : args;
}

export function parseCallArgs(text: string | undefined): Parsed<Record<string, unknown>> {
  if (text === undefined) return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `--args is not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    return { ok: false, message: `--args must be a JSON object such as '{"text":"hi"}', got ${kind}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * Server names may contain `/` (the config layer only warns), tool names too. The longest configured
 * server name that prefixes the target wins; with no match, the first `/` splits it.
 */
export function splitCallTarget(target: string, serverNames: readonly string[]): { server: string; tool: string } {
  const match = [...serverNames]
    .sort((a, b) => b.length - a.length)
    .find((name) => target.startsWith(`${name}/`) && target.length > name.length + 1);
  if (match !== undefined) return { server: match, tool: target.slice(match.length + 1) };
  const slash = target.indexOf('/');
  return { server: target.slice(0, slash), tool: target.slice(slash + 1) };
}
