// `serve --oauth-issuer`: what a team gateway needs before it takes a request. Read at start, so a
// wrong issuer, an unreachable one or a broken policy file stops serve with the reason, instead of
// a gateway that refuses everyone (or, worse, lets everyone see everything).
import { readRegularFileSync } from '../base/regularFile';
import { errorMessage } from '../base/errorMessage';
import { systemClock } from '../base/clock';
import type { Sealer } from '../base/sealer';
import type { SharedValues } from '../base/sharedValues';
import type { Logger } from '../base/logging';
import { oauthIdentity, type IdentityFactory } from '../gateway';
import type { HttpServerDefinition } from '../config';
import {
  AccessPolicy,
  createJwtVerifier,
  PerUserTokens,
  principalOf,
  TokenExchange,
  UserSignIns,
  type DeniedCall,
  type UpstreamTokens,
} from '../identity';
import type { ServeOAuth } from './serveArgs';

const MAX_POLICY_BYTES = 1024 * 1024;

export interface TeamIdentity {
  readonly identity: IdentityFactory;
  /** Users' own tokens for the upstreams that act for each user (`oauth.perUser`). */
  readonly upstreamTokens: UpstreamTokens;
}

/** What the users' own credentials need of the running gateway. */
export interface TeamGatewayView {
  /** The gateway's address as users' browsers reach it, without `/mcp`. */
  publicBase(): string;
  server(name: string): HttpServerDefinition | undefined;
  /** On several replicas: the shared key's sealer and Redis, so that any replica serves a user's sign-in. */
  readonly sealer?: Sealer;
  readonly values?: SharedValues;
}

/** Throws an Error saying what is wrong (the policy file's path and rule, or the issuer). */
export async function loadTeamIdentity(
  oauth: ServeOAuth,
  onDenied: ((denied: DeniedCall) => void) | undefined,
  logger: Logger,
  gateway: TeamGatewayView,
): Promise<TeamIdentity> {
  let policy: AccessPolicy | undefined;
  if (oauth.policyFile !== undefined) {
    const text = readRegularFileSync(oauth.policyFile, MAX_POLICY_BYTES);
    if (text === undefined) throw new Error(`--policy: ${oauth.policyFile} does not exist`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(`--policy: ${oauth.policyFile} is not JSON: ${errorMessage(error)}`);
    }
    try {
      policy = AccessPolicy.parse(json);
    } catch (error) {
      throw new Error(`--policy: ${oauth.policyFile}: ${errorMessage(error)}`);
    }
  }
  const verifier = await createJwtVerifier({ issuer: oauth.issuer });
  const identity = oauthIdentity({
    verifier,
    resource: oauth.resource,
    ...(oauth.audience ? { audience: oauth.audience } : {}),
    ...(oauth.scopes.length > 0 ? { requiredScopes: oauth.scopes } : {}),
    policy,
    onDenied,
  });
  const exchange = new TokenExchange({ clock: systemClock, logger });
  const signIns = new UserSignIns({
    clock: systemClock,
    logger,
    publicBase: () => gateway.publicBase(),
    server: (name) => gateway.server(name),
    teamLogin: {
      issuer: verifier.issuer,
      metadata: verifier.metadata,
      verify: async (idToken) => principalOf(await verifier.verifyAccessToken(idToken)),
    },
    sealer: gateway.sealer,
    values: gateway.values,
  });
  return { identity, upstreamTokens: new PerUserTokens(exchange, signIns) };
}
