// Builds the catalog's snapshot from what it reads of the servers (serverLists.ts) when something
// changed, at most once per burst of events, and announces it only when what chat sees changed
// (its signature).
import { Emitter, type Event } from '../base/events';
import type { Logger } from '../base/logging';
import { containFailure } from '../base/contain';
import type { CatalogSettings } from './settings';
import { buildSnapshot, isSettling, SnapshotMemo, type BuiltSnapshot, type SnapshotServerInput } from './snapshot';
import type { CatalogSnapshot } from './types';
import { fingerprint } from '../base/fingerprint';

export interface SnapshotPublisherOptions {
  readonly inputs: () => SnapshotServerInput[];
  readonly settings: () => CatalogSettings;
  readonly logger: Logger;
}

export class SnapshotPublisher {
  private readonly changeEmitter = new Emitter<CatalogSnapshot>();
  readonly onDidChange: Event<CatalogSnapshot> = this.changeEmitter.event;
  private built: BuiltSnapshot | undefined;
  private dirty = true;
  private flushQueued = false;
  private firedSignature: string | undefined;
  /** Warning messages already logged, so each is logged once while it holds. */
  private loggedWarnings = new Set<string>();
  private versions = new Map<string, string>();
  private readonly memo = new SnapshotMemo();
  private disposed = false;
  /** Snapshots rebuilt since construction. */
  builds = 0;

  constructor(private readonly options: SnapshotPublisherOptions) {}

  /** The snapshot as of now, rebuilt first if anything changed. */
  current(): BuiltSnapshot {
    if (!this.built || this.dirty) {
      this.dirty = false;
      this.built = buildSnapshot(this.options.inputs(), this.options.settings(), { memo: this.memo });
      this.builds += 1;
      this.versions = new Map();
    }
    return this.built;
  }

  /** Takes the current snapshot as the one already announced (at construction). */
  settle(): void {
    this.firedSignature = this.current().signature;
  }

  /** Something changed: rebuild and announce once the current burst of events is over. */
  markDirty(): void {
    this.dirty = true;
    if (this.flushQueued || this.disposed) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      containFailure(this.options.logger, 'tool catalog: handling a snapshot update', () => this.flush());
    });
  }

  /** Rebuilds now and announces if what chat sees changed. */
  flush(): void {
    if (this.disposed) return;
    const built = this.current();
    if (built.signature === this.firedSignature) return;
    this.firedSignature = built.signature;
    // The budget's warning is said once the servers have settled: while they come up, each one's
    // tools would change its counts, and each count would be said again. The rest at once.
    const settling = isSettling(built.snapshot);
    const warnings = new Set<string>();
    for (const warning of built.snapshot.warnings) {
      const held = settling && warning.kind === 'budgetExceeded';
      if (!held) warnings.add(warning.message);
      else if (this.loggedWarnings.has(warning.message)) warnings.add(warning.message);
    }
    for (const message of warnings) if (!this.loggedWarnings.has(message)) this.options.logger.warn(message);
    this.loggedWarnings = warnings;
    this.changeEmitter.fire(built.snapshot);
  }

  /**
   * A short hash of what the server exposes (qualified names and definitions): it changes exactly
   * when chat's view of that server changes. Undefined for a server that is not configured.
   */
  version(server: string): string | undefined {
    const built = this.current();
    const known = this.versions.get(server);
    if (known !== undefined) return known;
    const entry = built.snapshot.servers.find((candidate) => candidate.name === server);
    if (!entry) return undefined;
    const exposed = entry.tools.filter((tool) => tool.exposed).map((tool) => [tool.qualifiedName, tool.tool]);
    const version = fingerprint(exposed, 12);
    this.versions.set(server, version);
    return version;
  }

  dispose(): void {
    this.disposed = true;
    this.changeEmitter.dispose();
  }
}
