// A server's raw tool list, normalized once (copied, schemas checked, sorted by name, duplicates
// and unnamed entries set aside), so that every snapshot built from it shares that work.
import type { Tool } from '@modelcontextprotocol/client';
import { fingerprint } from '../base/fingerprint';
import { deepFreeze } from '../base/freeze';
import { isReadOnlyTool, normalizeTool, type NormalizeOptions } from './schema';

export interface PreparedTool {
  readonly name: string;
  /** The normalized copy, or the raw definition when `problem` is set. Frozen either way. */
  readonly tool: Tool;
  /** Why the schemas are unusable; the tool is then never exposed. */
  readonly problem?: string;
  readonly readOnly: boolean;
}

export interface PreparedToolList {
  /** Sorted by name (code-unit order), names unique. */
  readonly tools: readonly PreparedTool[];
  /** Names the server reported more than once; the first definition is kept. */
  readonly duplicates: readonly string[];
  /** Entries that could not be used at all (not an object, no name). */
  readonly unnamed: number;
  /** Identifies the content: equal lists have equal fingerprints. */
  readonly fingerprint: string;
}

export function fingerprintTools(tools: readonly unknown[]): string {
  return fingerprint(tools);
}

/**
 * Normalizes a raw tools/list result once, so every snapshot built from it shares the work. With
 * `shareFrozen`, tools that are deeply frozen already are used as they are instead of copied (see
 * normalizeTool).
 */
export function prepareToolList(
  raw: readonly unknown[],
  fingerprint = fingerprintTools(raw),
  options: NormalizeOptions = {},
): PreparedToolList {
  const byName = new Map<string, PreparedTool>();
  const duplicates: string[] = [];
  let unnamed = 0;
  for (const item of raw) {
    const name = typeof item === 'object' && item !== null ? (item as { name?: unknown }).name : undefined;
    if (typeof name !== 'string') {
      unnamed += 1;
      continue;
    }
    if (byName.has(name)) {
      duplicates.push(name);
      continue;
    }
    const normalized = normalizeTool(item, options);
    const readOnly = isReadOnlyTool(item);
    byName.set(
      name,
      normalized.ok
        ? { name, tool: normalized.tool, readOnly }
        : // The raw definition is shown (not offered) so the UI can explain what is wrong with it.
          { name, tool: deepFreeze(structuredCloneOr(item)) as Tool, problem: normalized.problem, readOnly },
    );
  }
  const tools = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools, duplicates: [...new Set(duplicates)], unnamed, fingerprint };
}

function structuredCloneOr(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return { name: (value as { name?: unknown }).name };
  }
}
