// Reads a team gateway's listing of its servers (GET /servers, gateway/exposure/serverListing.ts) with the
// user's sign-in to the gateway: the same provider, tokens and refresh as the servers' rows, so one
// sign-in serves the listing and every row. Everything it reads is bounded and checked; a gateway
// that cannot be read is a listing that says why, never a rejection.
import { LOOP_STATUS } from '../base/selfLoop';
import type { FetchLike } from '@modelcontextprotocol/client';
import { UnauthorizedError } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { OAuthRegistry } from '../auth';
import { BodyTooLargeError, readBoundedBody } from '../base/boundedBody';
import { errorMessage } from '../base/errorMessage';
import type { Logger } from '../base/logging';
import { DEFAULT_OAUTH, teamSignInUrl, type TeamListing } from '../config';
import { SignInRequiredError } from '../connection';
import { SERVER_LISTING_PATH } from '../gateway';

/** Far more servers than a team runs; a listing over it is refused whole, not cut. */
export const MAX_TEAM_SERVERS = 500;
const MAX_LISTING_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

const listingSchema = z.object({
  servers: z.array(z.object({ name: z.string().min(1).max(128) }).passthrough()).max(MAX_TEAM_SERVERS),
});

export interface TeamDirectoryOptions {
  readonly oauth: OAuthRegistry;
  readonly logger: Logger;
  readonly fetch?: FetchLike;
  readonly timeoutMs?: number;
}

export class TeamDirectory {
  constructor(private readonly options: TeamDirectoryOptions) {}

  /** The listing of the gateway at `base` (teamSources.ts's TeamLister). Never rejects. */
  readonly list = async (base: string): Promise<TeamListing> => {
    try {
      return await this.read(base);
    } catch (error) {
      const message = errorMessage(error);
      this.options.logger.warn(`team gateway ${base}: its servers could not be listed: ${message}`);
      return { kind: 'unlisted', reason: 'failed', message };
    }
  };

  private async read(base: string): Promise<TeamListing> {
    const signInUrl = teamSignInUrl(base);
    // The rows' own provider: their entries have no `oauth` block, so theirs is the default too.
    const auth = this.options.oauth.providerForUrl(signInUrl, DEFAULT_OAUTH, new URL(base).host).transportAuth();
    const url = `${base}${SERVER_LISTING_PATH}`;
    let response = await this.get(url, await auth.token());
    if (response.status === 401) {
      try {
        if (!auth.onUnauthorized) return needsSignIn();
        await auth.onUnauthorized({ response, serverUrl: new URL(signInUrl), fetchFn: this.fetch });
      } catch (error) {
        if (error instanceof SignInRequiredError || UnauthorizedError.isInstance(error)) return needsSignIn();
        throw error;
      }
      response = await this.get(url, await auth.token());
      if (response.status === 401) return needsSignIn();
    }
    if (!response.ok) {
      await response.body?.cancel();
      if (response.status === LOOP_STATUS) throw new Error("it is this Switchboard's own gateway: a team source names another gateway");
      throw new Error(`GET ${SERVER_LISTING_PATH} answered HTTP ${response.status}`);
    }
    let text: string;
    try {
      text = await readBoundedBody(response, MAX_LISTING_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new Error(`its listing is over ${MAX_LISTING_BYTES} bytes`);
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error('its listing is not JSON');
    }
    const listing = listingSchema.safeParse(parsed);
    if (!listing.success) throw new Error(`its listing is not a list of at most ${MAX_TEAM_SERVERS} named servers`);
    return { kind: 'listed', servers: [...new Set(listing.data.servers.map((server) => server.name))] };
  }

  private readonly fetch: FetchLike = (input, init) => (this.options.fetch ?? fetch)(input, init);

  private async get(url: string, token: string | undefined): Promise<Response> {
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    return this.fetch(url, {
      signal,
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
  }
}

function needsSignIn(): TeamListing {
  return { kind: 'unlisted', reason: 'signIn', message: 'sign in to the team gateway to list its servers' };
}
