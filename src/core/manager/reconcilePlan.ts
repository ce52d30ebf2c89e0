// What a new configuration changes, worked out as data: which servers keep their connection (and
// whether their lifecycle or block changed), which are created (new, or changed in how they
// connect), and which stop. The manager applies the plan; the plan itself is pure.
import { hashServerConnection } from '../config';
import { isInvalid, type ConfiguredServer, type ServerBlock } from './managedServer';

/** What the plan needs to know of a server the manager holds now. */
export interface HeldServer {
  readonly configured: ConfiguredServer;
  readonly hash: string | undefined;
  readonly hasConnection: boolean;
  readonly blocked: ServerBlock | undefined;
}

export interface KeptServer {
  readonly name: string;
  readonly configured: ConfiguredServer;
  /** `lifecycle` or `idleStopMinutes` changed: applied in place. */
  readonly lifecycleChanged: boolean;
  /** Present when the block changed (`block` undefined: unblocked). */
  readonly blockChange?: { readonly block: ServerBlock | undefined };
}

export interface CreatedServer {
  readonly name: string;
  readonly configured: ConfiguredServer;
  readonly hash: string | undefined;
  readonly block: ServerBlock | undefined;
  /** It replaces a server of the same name whose connection changed. */
  readonly replaces: boolean;
}

export interface ReconcilePlan {
  readonly keep: readonly KeptServer[];
  readonly create: readonly CreatedServer[];
  /** Servers whose connection ends: removed, or replaced by one in `create`. */
  readonly stop: readonly string[];
  /** The new configuration order, each name once. */
  readonly order: readonly string[];
}

/**
 * Compares by connection hash: a server whose connection is unchanged keeps it (only fields such as
 * tool filters, source or lifecycle may differ); any other is created anew. `blocks`, when given,
 * is the complete set of servers held back (a name not in it is unblocked); when omitted, earlier
 * blocks stay. A repeated name is taken once (the config layer already warned).
 */
export function planReconcile(
  held: ReadonlyMap<string, HeldServer>,
  servers: readonly ConfiguredServer[],
  blocks: ReadonlyMap<string, ServerBlock> | undefined,
): ReconcilePlan {
  const keep: KeptServer[] = [];
  const create: CreatedServer[] = [];
  const stop: string[] = [];
  const order: string[] = [];
  for (const configured of servers) {
    const name = configured.name;
    if (order.includes(name)) continue;
    order.push(name);
    const previous = held.get(name);
    const hash = isInvalid(configured) ? undefined : hashServerConnection(configured);
    const block = blocks ? blocks.get(name) : previous?.blocked;
    if (previous && sameConnection(previous, configured, hash)) {
      keep.push({
        name,
        configured,
        lifecycleChanged:
          !isInvalid(configured) && JSON.stringify(lifecycleOf(previous.configured)) !== JSON.stringify(configured.lifecycle),
        ...(JSON.stringify(previous.blocked) === JSON.stringify(block) ? {} : { blockChange: { block } }),
      });
      continue;
    }
    if (previous) stop.push(name);
    create.push({ name, configured, hash, block, replaces: previous !== undefined });
  }
  for (const name of held.keys()) if (!order.includes(name)) stop.push(name);
  return { keep, create, stop, order };
}

function sameConnection(previous: HeldServer, configured: ConfiguredServer, hash: string | undefined): boolean {
  return (
    previous.hash !== undefined &&
    previous.hash === hash &&
    previous.hasConnection &&
    !isInvalid(configured) &&
    !isInvalid(previous.configured) &&
    previous.configured.enabled === configured.enabled
  );
}

function lifecycleOf(server: ConfiguredServer): unknown {
  return isInvalid(server) ? undefined : server.lifecycle;
}
