// A cheap local check of tool arguments, so that a call that would certainly be rejected costs no
// round trip (and is never retried). Deliberately shallow: the server validates fully; this only
// catches what every schema-aware server would reject.
import type { Tool } from '@modelcontextprotocol/client';

/** Problems with `args` for `tool`, empty when none were found. */
export function checkToolArguments(tool: Pick<Tool, 'inputSchema'>, args: unknown): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return [`arguments must be an object, got ${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args}`];
  }
  const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required.filter((name) => typeof name === 'string') : [];
  const missing = required.filter((name) => (args as Record<string, unknown>)[name] === undefined);
  return missing.length === 0
    ? []
    : [`missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((name) => `\`${name}\``).join(', ')}`];
}
