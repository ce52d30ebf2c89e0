// The qualified names of a snapshot's tools (`server__tool`, unique, at most 64 characters), and the
// strings they are built from, kept with each prepared list so that rebuilds neither sanitize nor
// concatenate again.
import { QUALIFIED_NAME_SEPARATOR, qualifyGroups, sanitizeNamePart, type NameGroup, type QualifiedNames } from './naming';
import type { PreparedToolList } from './preparedList';

/** One server of a build: its name, and its list when it has one that was filtered. */
export interface NamedServer {
  readonly name: string;
  readonly tools?: PreparedToolList;
}

export type NameLookup = Pick<QualifiedNames, 'get' | 'forServer'>;

interface ListNames {
  readonly tools: readonly string[];
  readonly safeTools: readonly string[];
  /** Per server the list belongs to (normally one). */
  readonly byServer: Map<string, ServerListNames>;
}

interface ServerListNames {
  /** `server/tool`, as the global filters see it. */
  readonly qualified: readonly string[];
  /** `sanitize(server)__sanitize(tool)`, the names naming starts from. */
  readonly plains: readonly string[];
}

/**
 * Strings derived from a prepared list's names, computed on its first build and kept with it (lists
 * are immutable, and a new list is a new object), so later builds neither sanitize nor concatenate.
 */
const listNames = new WeakMap<PreparedToolList, ListNames>();

export function namesOf(list: PreparedToolList): ListNames {
  let names = listNames.get(list);
  if (!names) {
    const tools = list.tools.map((tool) => tool.name);
    names = { tools, safeTools: tools.map(sanitizeNamePart), byServer: new Map() };
    listNames.set(list, names);
  }
  return names;
}

export function serverNamesOf(list: PreparedToolList, server: string): ServerListNames {
  const names = namesOf(list);
  let forServer = names.byServer.get(server);
  if (!forServer) {
    const safeServer = sanitizeNamePart(server);
    forServer = {
      qualified: names.tools.map((tool) => `${server}/${tool}`),
      plains: names.safeTools.map((safeTool) => `${safeServer}${QUALIFIED_NAME_SEPARATOR}${safeTool}`),
    };
    names.byServer.set(server, forServer);
  }
  return forServer;
}

/** Names for every server with a filtered list (`filtered[i]`); `memo` keeps the last result by `key`. */
export function qualifiedNamesFor(
  servers: readonly NamedServer[],
  filtered: readonly boolean[],
  key: string,
  memo: { names: { readonly key: string; readonly names: NameLookup } | undefined },
): NameLookup {
  if (memo.names?.key === key) return memo.names.names;
  // One group per server with a list; the rows are the list's tools, in its (sorted, unique) order.
  const groups = new Map<string, NameGroup>();
  let merged = false;
  servers.forEach((server, index) => {
    if (!filtered[index] || !server.tools) return;
    const { tools, safeTools } = namesOf(server.tools);
    const known = groups.get(server.name);
    if (!known) {
      groups.set(server.name, { server: server.name, tools, safeTools, plains: serverNamesOf(server.tools, server.name).plains });
      return;
    }
    // The same server twice (not something the catalog produces): merge, as pairs would be.
    merged = true;
    const union = [...new Set([...known.tools, ...tools])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    groups.set(server.name, { server: server.name, tools: union });
  });
  const names = qualifyGroups([...groups.values()]);
  // With merged groups the rows no longer line up with the names: look them up by name instead.
  const result = merged ? new ByNameOnly(names) : names;
  memo.names = { key, names: result };
  return result;
}

/** Hides forServer() so every lookup goes by name. */
class ByNameOnly implements NameLookup {
  constructor(private readonly inner: QualifiedNames) {}
  get(server: string, tool: string): string | undefined {
    return this.inner.get(server, tool);
  }
  forServer(): undefined {
    return undefined;
  }
}
