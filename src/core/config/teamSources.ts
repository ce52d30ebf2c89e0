// A team gateway as a source (`mcpSwitchboard.sources` lists its URL): each server it lists for the
// user becomes a remote entry at its endpoint, signing in with the gateway's one sign-in. Until the
// gateway lists them (not signed in yet, or unreachable) the gateway itself is one entry, at its
// aggregated endpoint, whose row says why (needs sign-in, the error) and offers the fix. Reading the
// listing is the host's (core/team); this file only turns it into entries.
import type { ServerCandidate } from './buildContext';
import type { TeamListing } from './configurationInput';
import type { ConfigDiagnostic, ServerSource } from './types';

/** Loopback hosts may be reached over plain HTTP (a gateway on this machine, the tests). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A source item that names a team gateway: an https URL (http on loopback), without credentials,
 * query or fragment. Its base, without a trailing slash; undefined for any other item.
 */
export function teamGatewayBase(item: string): string | undefined {
  if (!/^https?:\/\//i.test(item)) return undefined;
  let url: URL;
  try {
    url = new URL(item);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.search || url.hash) return undefined;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return undefined;
  return url.href.replace(/\/+$/, '');
}

/** A team gateway's sign-in: its aggregated endpoint, which names the one resource of all its endpoints. */
export function teamSignInUrl(base: string): string {
  return `${base}/mcp`;
}

/** The name of the gateway's own entry, while its servers are not listed: its host, in portable characters. */
export function teamEntryName(base: string): string {
  return new URL(base).host.replace(/[^A-Za-z0-9_.-]+/g, '-');
}

export interface TeamEntries {
  readonly candidates: readonly ServerCandidate[];
  readonly diagnostics: readonly ConfigDiagnostic[];
}

export function teamEntries(base: string, listing: TeamListing): TeamEntries {
  const source: ServerSource = { kind: 'team', url: base };
  const signInUrl = teamSignInUrl(base);
  const candidate = (name: string, url: string): ServerCandidate => ({
    name,
    raw: { type: 'http', url },
    source,
    path: `team.${name}`,
    inputs: new Map(),
    signInUrl,
  });
  if (listing.kind === 'listed') {
    return {
      candidates: listing.servers.map((name) => candidate(name, `${base}/mcp/${encodeURIComponent(name)}`)),
      diagnostics: [],
    };
  }
  const diagnostics: ConfigDiagnostic[] =
    listing.reason === 'failed'
      ? [{ severity: 'warning', path: 'mcpSwitchboard.sources', message: `team gateway ${base}: ${listing.message}`, source }]
      : [];
  return { candidates: [candidate(teamEntryName(base), signInUrl)], diagnostics };
}
