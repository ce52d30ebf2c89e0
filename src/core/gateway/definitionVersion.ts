// The version of a server's endpoint that an editor is handed with its definition. The editor
// stops a server whose definition changed, one it is still starting too, and starts it again: each
// new version costs a stop and a start. So a version, once published, is held while the editor may
// be starting or using the server; its live session gets the new tool list through
// tools/list_changed instead.

/** What the editor adapter knows about one server's endpoint right now. */
export interface EndpointFacts {
  /** The version the editor has, if one was published. */
  readonly published?: string;
  /** The catalog's version of the server's offer (it moves with the tool list). */
  readonly current: string | undefined;
  /** Servers are still starting: the editor may begin at any moment. */
  readonly settling: boolean;
  /** Switchboard asked the editor to start it and it has not connected yet. */
  readonly startRequested: boolean;
  /** The editor resolved the definition (it is starting the server). */
  readonly resolved: boolean;
  /** The editor's sessions on the endpoint, open or opening. */
  readonly sessions: number;
}

/** The version to publish: the one the editor has while it is held, else the catalog's. */
export function definitionVersion(facts: EndpointFacts): string {
  const held = facts.settling || facts.startRequested || facts.resolved || facts.sessions > 0;
  return (held ? facts.published : undefined) ?? facts.current ?? 'empty';
}
