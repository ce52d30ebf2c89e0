// What the tool cache stores and where. An entry is the unfiltered result of tools/list (every
// page) for one server under one connection config, with the time it was fetched. Storage is
// pluggable: the editor keeps entries in its global storage, the CLI in a folder, tests in memory.
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import type { Skill } from '../connection';
import { identityOf, MAX_INSTRUCTIONS, type ServerInfo } from '../state';

export const TOOL_CACHE_FORMAT = 1;
export const DEFAULT_CACHE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface ToolCacheEntry {
  /** Bumped when the shape changes; entries of another format are misses. */
  readonly format: typeof TOOL_CACHE_FORMAT;
  readonly server: string;
  /** hashServerConnection() of the definition the list was fetched with. */
  readonly connectionHash: string;
  /** Epoch ms. */
  readonly fetchedAt: number;
  /** Never empty unless `offer` has something: an empty list is never stored on its own. */
  readonly tools: readonly Tool[];
  /** The server's resources, templates and prompts, and its capabilities, from its last connection. */
  readonly offer?: CachedOffer;
}

export interface CachedOffer {
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplateType[];
  readonly prompts: readonly Prompt[];
  /** Skill entries (manifests, no file content); absent in entries stored before skills were kept. */
  readonly skills?: readonly Skill[];
  readonly capabilities?: Readonly<Record<string, unknown>>;
  /** The server's `instructions`, as it last gave them (bounded by MAX_INSTRUCTIONS). */
  readonly instructions?: string;
  /** Who the server said it is (version, icons, website), bounded by identityOf. */
  readonly serverInfo?: ServerInfo;
}

/**
 * Where entries live. Values are plain JSON; every method is async so that an implementation can
 * sit on any store (a folder, the editor's Memento, a database).
 */
export interface ToolCacheStorage {
  /**
   * The stored value, or undefined when there is none. Typed `unknown` because storage outlives
   * versions of this code and files can be edited or damaged: the caller validates.
   */
  get(key: string): Promise<unknown>;
  set(key: string, entry: ToolCacheEntry): Promise<void>;
  /** No error when the key does not exist. */
  delete(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

/** Server name plus connection hash: a changed connection config is a different key, so a miss. */
export function toolCacheKey(server: string, connectionHash: string): string {
  return `${connectionHash}:${server}`;
}

export function isExpired(entry: Pick<ToolCacheEntry, 'fetchedAt'>, now: number, ttlMs: number): boolean {
  const age = now - entry.fetchedAt;
  // A fetch time far in the future means a broken clock or a damaged entry; do not trust it forever.
  return age >= ttlMs || age < -ttlMs;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The entry stored under `key`, or why the value is unusable. */
export function parseToolCacheEntry(key: string, value: unknown): { entry: ToolCacheEntry } | { problem: string } {
  if (!isPlainObject(value)) return { problem: 'not an object' };
  if (value.format !== TOOL_CACHE_FORMAT) return { problem: `format ${JSON.stringify(value.format)} is not ${TOOL_CACHE_FORMAT}` };
  const { server, connectionHash, fetchedAt, tools } = value;
  if (typeof server !== 'string' || typeof connectionHash !== 'string') return { problem: 'server or connectionHash missing' };
  if (toolCacheKey(server, connectionHash) !== key) return { problem: 'stored under a key that does not match its server and hash' };
  if (typeof fetchedAt !== 'number' || !Number.isFinite(fetchedAt)) return { problem: 'fetchedAt is not a number' };
  const offer = value.offer === undefined ? undefined : parseOffer(value.offer);
  if (typeof offer === 'string') return { problem: offer };
  const offersSomething =
    offer !== undefined && offer.resources.length + offer.resourceTemplates.length + offer.prompts.length + (offer.skills?.length ?? 0) > 0;
  if (!Array.isArray(tools) || (tools.length === 0 && !offersSomething)) return { problem: 'tools is not a non-empty array' };
  if (!tools.every((tool) => isPlainObject(tool) && typeof tool.name === 'string')) return { problem: 'a tool has no name' };
  // Each tool's schemas are checked where every tool list is, in normalizeTool().
  return { entry: { format: TOOL_CACHE_FORMAT, server, connectionHash, fetchedAt, tools: tools as Tool[], offer } };
}

/** Items need the fields clients rely on (uri, uriTemplate, name); anything else is the problem. */
function parseOffer(value: unknown): CachedOffer | string {
  if (!isPlainObject(value)) return 'offer is not an object';
  const list = (key: string, fields: readonly string[]): unknown[] | string => {
    const items = value[key];
    if (!Array.isArray(items)) return `offer.${key} is not an array`;
    return items.every((item) => isPlainObject(item) && fields.every((field) => typeof item[field] === 'string'))
      ? items
      : `an item of offer.${key} lacks ${fields.join(' or ')}`;
  };
  const resources = list('resources', ['uri', 'name']);
  const resourceTemplates = list('resourceTemplates', ['uriTemplate', 'name']);
  const prompts = list('prompts', ['name']);
  for (const checked of [resources, resourceTemplates, prompts]) if (typeof checked === 'string') return checked;
  const skills = value.skills === undefined ? [] : list('skills', ['uri']);
  if (typeof skills === 'string') return skills;
  if (!skills.every((skill) => isPlainObject((skill as Record<string, unknown>).frontmatter)))
    return 'an item of offer.skills lacks frontmatter';
  const capabilities = value.capabilities;
  if (capabilities !== undefined && !isPlainObject(capabilities)) return 'offer.capabilities is not an object';
  const serverInfo =
    isPlainObject(value.serverInfo) && typeof value.serverInfo.name === 'string' && typeof value.serverInfo.version === 'string'
      ? identityOf(value.serverInfo as { name: string; version: string })
      : undefined;
  const instructions = value.instructions;
  if (instructions !== undefined && (typeof instructions !== 'string' || instructions.length > MAX_INSTRUCTIONS))
    return 'offer.instructions is not a string of at most 64 KiB';
  return {
    resources: resources as Resource[],
    resourceTemplates: resourceTemplates as ResourceTemplateType[],
    prompts: prompts as Prompt[],
    ...(skills.length > 0 ? { skills: skills as Skill[] } : {}),
    capabilities,
    ...(instructions ? { instructions } : {}),
    serverInfo,
  };
}

/**
 * Keeps entries as JSON text, like every real storage does: what `get` returns is never the object
 * that was passed to `set`, and a value that would not survive JSON fails here as it would there.
 */
export class MemoryToolCacheStorage implements ToolCacheStorage {
  private readonly values = new Map<string, string>();

  async get(key: string): Promise<unknown> {
    const text = this.values.get(key);
    return text === undefined ? undefined : JSON.parse(text);
  }

  async set(key: string, entry: ToolCacheEntry): Promise<void> {
    this.values.set(key, JSON.stringify(entry));
  }

  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }

  async keys(): Promise<string[]> {
    return [...this.values.keys()];
  }

  /** For tests and diagnostics: store a raw value, valid or not. */
  setRaw(key: string, value: unknown): void {
    this.values.set(key, JSON.stringify(value));
  }
}
