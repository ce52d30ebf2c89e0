// Qualified tool names (`server__tool`) for the whole catalog. Model APIs accept only
// [A-Za-z0-9_-]{1,64} and need names unique per request, so names are computed from the complete,
// sorted set of `server/tool` pairs: the same set always yields the same names, whatever order the
// servers connected in.
import { createHash } from 'node:crypto';

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

function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

interface Candidate {
  readonly ref: ToolRef;
  readonly server: string;
  readonly tool: string;
  readonly plain: string;
  /** Sanitizing changed nothing: the plain name reads back as exactly this pair. */
  readonly lossless: boolean;
}

/** `server__tool` cut to BASE_LENGTH, sharing the room so that neither part disappears. */
function truncatedBase(server: string, tool: string): string {
  const plain = `${server}${QUALIFIED_NAME_SEPARATOR}${tool}`;
  if (plain.length <= BASE_LENGTH) return plain;
  const room = BASE_LENGTH - QUALIFIED_NAME_SEPARATOR.length;
  const serverKeep = Math.min(server.length, Math.max(MIN_SERVER_PART, room - tool.length));
  return `${server.slice(0, serverKeep)}${QUALIFIED_NAME_SEPARATOR}${tool.slice(0, room - serverKeep)}`;
}

function suffixed(candidate: Candidate, attempt: number): string {
  const original = `${candidate.ref.server}/${candidate.ref.tool}`;
  // Later attempts only happen when a suffixed name collides with another name, which needs a
  // 32-bit hash collision; they keep the result deterministic instead of failing.
  const hash = shortHash(attempt === 0 ? original : `${original}#${attempt}`);
  return `${truncatedBase(candidate.server, candidate.tool)}_${hash}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Qualified names for a set of tool references; look them up with `get`. */
export class QualifiedNames {
  constructor(private readonly names: ReadonlyMap<string, ReadonlyMap<string, string>>) {}

  get(server: string, tool: string): string | undefined {
    return this.names.get(server)?.get(tool);
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
  // Sorted by server, then tool (code-unit order): the order every later choice depends on.
  const candidates: Candidate[] = [];
  for (const server of [...toolsByServer.keys()].sort(compareText)) {
    const safeServer = sanitizeNamePart(server);
    for (const tool of [...(toolsByServer.get(server) ?? [])].sort(compareText)) {
      const safeTool = sanitizeNamePart(tool);
      candidates.push({
        ref: { server, tool },
        server: safeServer,
        tool: safeTool,
        plain: `${safeServer}${QUALIFIED_NAME_SEPARATOR}${safeTool}`,
        lossless: safeServer === server && safeTool === tool,
      });
    }
  }

  const byPlain = new Map<string, Candidate[]>();
  for (const candidate of candidates) {
    if (candidate.plain.length > MAX_QUALIFIED_NAME_LENGTH) continue;
    const group = byPlain.get(candidate.plain);
    if (group) group.push(candidate);
    else byPlain.set(candidate.plain, [candidate]);
  }

  const assigned = new Map<Candidate, string>();
  const taken = new Set<string>();
  for (const [plain, group] of byPlain) {
    const keeper = group.length === 1 ? group[0] : (group.find((candidate) => candidate.lossless) ?? group[0]);
    if (!keeper) continue;
    assigned.set(keeper, plain);
    taken.add(plain);
  }
  const names = new Map<string, Map<string, string>>();
  for (const candidate of candidates) {
    let name = assigned.get(candidate);
    if (name === undefined) {
      let attempt = 0;
      name = suffixed(candidate, attempt);
      while (taken.has(name)) name = suffixed(candidate, ++attempt);
      taken.add(name);
    }
    let serverNames = names.get(candidate.ref.server);
    if (!serverNames) {
      serverNames = new Map();
      names.set(candidate.ref.server, serverNames);
    }
    serverNames.set(candidate.ref.tool, name);
  }
  return new QualifiedNames(names);
}
