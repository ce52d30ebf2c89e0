// Qualified tool names (`server__tool`) for the whole catalog. Model APIs accept only
// [A-Za-z0-9_-]{1,64} and need names unique per request, so names are computed from the complete,
// sorted set of `server/tool` pairs: the same set always yields the same names, whatever order the
// servers connected in.
import crypto from 'node:crypto';

export const MAX_QUALIFIED_NAME_LENGTH = 64;
export const QUALIFIED_NAME_SEPARATOR = '__';

/** `_` plus 8 hex characters. */
const SUFFIX_LENGTH = 9;
/** Room for `server__tool` when a suffix follows. */
const BASE_LENGTH = MAX_QUALIFIED_NAME_LENGTH - SUFFIX_LENGTH;
/** When both parts are long, the server keeps at least this much so the tool's origin stays readable. */
const MIN_SERVER_PART = 20;

const SAFE = /^[A-Za-z0-9_-]*$/;
// eslint-disable-next-line no-control-regex -- the whole ASCII range, control characters included.
const ASCII = /^[\x00-\x7f]*$/;

export interface ToolRef {
  readonly server: string;
  readonly tool: string;
}

/**
 * Replaces everything outside [A-Za-z0-9_-] with `_`. Accents are stripped first (`é` → `e`) and
 * compatibility forms folded (`ﬁ` → `fi`) so that common names stay readable; every other code
 * point, including an astral one such as an emoji, becomes a single `_`.
 */
export function sanitizeNamePart(text: string): string {
  if (SAFE.test(text)) return text;
  if (ASCII.test(text)) return text.replace(/[^A-Za-z0-9_-]/g, '_');
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9_-]/gu, '_');
}

/** Node's one-shot hash (20.12+, 21.7+) where present: several times cheaper than a Hash object. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

function shortHash(text: string): string {
  return (oneShotHash ? oneShotHash('sha256', text, 'hex') : crypto.createHash('sha256').update(text, 'utf8').digest('hex')).slice(0, 8);
}

/** `server__tool` cut to BASE_LENGTH, sharing the room so that neither part disappears. */
function truncatedBase(server: string, tool: string): string {
  const plain = `${server}${QUALIFIED_NAME_SEPARATOR}${tool}`;
  if (plain.length <= BASE_LENGTH) return plain;
  const room = BASE_LENGTH - QUALIFIED_NAME_SEPARATOR.length;
  const serverKeep = Math.min(server.length, Math.max(MIN_SERVER_PART, room - tool.length));
  return `${server.slice(0, serverKeep)}${QUALIFIED_NAME_SEPARATOR}${tool.slice(0, room - serverKeep)}`;
}

function suffixed(server: string, tool: string, safeServer: string, safeTool: string, attempt: number): string {
  const original = `${server}/${tool}`;
  // Later attempts only happen when a suffixed name collides with another name, which needs a
  // 32-bit hash collision; they keep the result deterministic instead of failing.
  const hash = shortHash(attempt === 0 ? original : `${original}#${attempt}`);
  return `${truncatedBase(safeServer, safeTool)}_${hash}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * One server's tools for naming: `tools` sorted in code-unit order without repeats, and
 * `safeTools[i]` = sanitizeNamePart(tools[i]) when the caller has them precomputed.
 */
export interface NameGroup {
  readonly server: string;
  readonly tools: readonly string[];
  readonly safeTools?: readonly string[];
  /** `plains[i]` = `sanitize(server)__safeTools[i]`, when the caller has them precomputed. */
  readonly plains?: readonly string[];
}

/** Qualified names for a set of tool references; look them up with `get`, or per group with `forServer`. */
export class QualifiedNames {
  private maps: Map<string, ReadonlyMap<string, string>> | undefined;

  /** `names[i][j]` is the name of `groups[i].tools[j]`. */
  constructor(
    private readonly groups: readonly NameGroup[],
    private readonly names: readonly (readonly string[])[],
  ) {}

  get(server: string, tool: string): string | undefined {
    if (!this.maps) {
      this.maps = new Map();
      this.groups.forEach((group, index) => {
        const names = this.names[index] ?? [];
        this.maps?.set(group.server, new Map(group.tools.map((name, j) => [name, names[j] ?? ''])));
      });
    }
    return this.maps.get(server)?.get(tool);
  }

  /** The names of a server's tools, in the order of its group's `tools`; undefined for an unknown server. */
  forServer(server: string): readonly string[] | undefined {
    const index = this.groups.findIndex((group) => group.server === server);
    return index < 0 ? undefined : this.names[index];
  }
}

/**
 * Assigns every pair a unique name of at most 64 characters from [A-Za-z0-9_-]:
 * - normally `sanitize(server)__sanitize(tool)`;
 * - when that is too long, or several pairs sanitize to the same name, the name is truncated and
 *   `_` plus 8 hex characters of SHA-256(`server/tool`) appended. In a collision one pair keeps
 *   the plain name: one that sanitizing did not change, else the first in code-unit order. So
 *   adding a server whose tool sanitizes onto an existing name does not rename the existing tool.
 */
export function qualifyToolNames(refs: Iterable<ToolRef>): QualifiedNames {
  const toolsByServer = new Map<string, Set<string>>();
  for (const ref of refs) {
    const tools = toolsByServer.get(ref.server);
    if (tools) tools.add(ref.tool);
    else toolsByServer.set(ref.server, new Set([ref.tool]));
  }
  return qualifyGroups([...toolsByServer].map(([server, tools]) => ({ server, tools: [...tools].sort(compareText) })));
}

/**
 * qualifyToolNames() for input already grouped by server (server names unique, each group's tools
 * sorted in code-unit order and unique), without building a pair per tool. Same names.
 */
export function qualifyGroups(input: readonly NameGroup[]): QualifiedNames {
  // Sorted by server, then tool (code-unit order): the order every later choice depends on.
  const groups = [...input].sort((a, b) => compareText(a.server, b.server));
  const safeServers = groups.map((group) => sanitizeNamePart(group.server));
  const plains: string[][] = [];
  const lossless: boolean[][] = [];
  // The pair that keeps each plain name, as [group, tool] indexes packed into one number.
  const keepers = new Map<string, number>();
  const width = Math.max(1, ...groups.map((group) => group.tools.length));
  groups.forEach((group, g) => {
    const safeServer = safeServers[g] ?? '';
    const serverLossless = safeServer === group.server;
    const groupPlains: string[] = (plains[g] = new Array<string>(group.tools.length));
    const groupLossless: boolean[] = (lossless[g] = new Array<boolean>(group.tools.length));
    for (let t = 0; t < group.tools.length; t++) {
      const tool = group.tools[t] ?? '';
      const safeTool = group.safeTools?.[t] ?? sanitizeNamePart(tool);
      const plain = group.plains?.[t] ?? `${safeServer}${QUALIFIED_NAME_SEPARATOR}${safeTool}`;
      const isLossless = serverLossless && safeTool === tool;
      groupPlains[t] = plain;
      groupLossless[t] = isLossless;
      if (plain.length > MAX_QUALIFIED_NAME_LENGTH) continue;
      const keeper = keepers.get(plain);
      if (keeper === undefined) keepers.set(plain, g * width + t);
      // The first lossless pair wins; without one, the first pair.
      else if (isLossless && !lossless[Math.floor(keeper / width)]?.[keeper % width]) keepers.set(plain, g * width + t);
    }
  });

  const taken = new Set<string>();
  const names = groups.map((group, g) => {
    const groupPlains = plains[g] ?? [];
    const out = new Array<string>(group.tools.length);
    for (let t = 0; t < group.tools.length; t++) {
      const plain = groupPlains[t] ?? '';
      if (plain.length <= MAX_QUALIFIED_NAME_LENGTH && keepers.get(plain) === g * width + t) {
        out[t] = plain;
        continue;
      }
      const tool = group.tools[t] ?? '';
      const safeTool = group.safeTools?.[t] ?? sanitizeNamePart(tool);
      const safeServer = safeServers[g] ?? '';
      let attempt = 0;
      let name = suffixed(group.server, tool, safeServer, safeTool, attempt);
      while (keepers.has(name) || taken.has(name)) name = suffixed(group.server, tool, safeServer, safeTool, ++attempt);
      taken.add(name);
      out[t] = name;
    }
    return out;
  });
  return new QualifiedNames(groups, names);
}
