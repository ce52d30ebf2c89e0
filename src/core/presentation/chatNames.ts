// The names the editor's chat gives the tools of the servers Switchboard publishes, so that what we
// show (the tool catalog) is what chat shows. They follow VS Code 1.139's MCP client: a prefix per
// server (`mcp_` and its reported name, lower-cased, with runs of other characters as `_`, cut to
// 18 characters, and a number for a second server with the same cut name), then the tool name with
// `.` as `_`, cut to 64 characters.

const PREFIX = 'mcp_';
const MAX_PREFIX = 18;
const MAX_NAME = 64;

/** Each server's prefix, taken in the given order (the editor numbers a clash in the order it meets servers). */
export function editorToolPrefixes(servers: readonly string[]): Map<string, string> {
  const taken = new Map<string, number>();
  const prefixes = new Map<string, string>();
  for (const server of servers) {
    const safe = server
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, '_')
      .slice(0, MAX_PREFIX - PREFIX.length - 1);
    const index = (taken.get(safe) ?? 0) + 1;
    taken.set(safe, index);
    const suffix = `${index === 1 ? '' : String(index)}_`;
    prefixes.set(server, PREFIX + safe.slice(0, MAX_PREFIX - PREFIX.length - suffix.length) + suffix);
  }
  return prefixes;
}

export function editorToolName(prefix: string, tool: string): string {
  return (prefix + tool).replaceAll('.', '_').slice(0, MAX_NAME);
}
