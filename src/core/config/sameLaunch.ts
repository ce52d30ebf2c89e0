// Whether an entry from another client's file runs what a configured server already runs (the
// same command line, or the same URL): Import says so, so that `memory2` is not added beside
// `memory` by mistake.

/** What an entry runs, as one comparable key; undefined for an entry that runs nothing. */
export function launchKey(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { command, args, url } = entry as Record<string, unknown>;
  if (typeof url === 'string' && url.length > 0) return `url ${comparableUrl(url)}`;
  if (typeof command !== 'string' || command.length === 0) return undefined;
  const words = Array.isArray(args) ? args.filter((arg): arg is string => typeof arg === 'string') : [];
  return JSON.stringify([command, ...words]);
}

/** `HTTP://Example.com/mcp/` and `http://example.com/mcp` are one server. */
function comparableUrl(url: string): string {
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    return url;
  }
}

/**
 * The first configured server, by another name, that runs what `entry` runs. `configured` holds
 * each server's entry or definition (anything with `command`/`args` or `url`).
 */
export function sameLaunchAs(
  entry: unknown,
  name: string,
  configured: ReadonlyArray<{ readonly name: string; readonly definition?: unknown }>,
): string | undefined {
  const key = launchKey(entry);
  if (key === undefined) return undefined;
  return configured.find((server) => server.name !== name && launchKey(server.definition) === key)?.name;
}
