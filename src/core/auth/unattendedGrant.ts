// How an unattended sign-in asks for a token, without a browser: with the client's own credentials
// (`client_credentials`, authenticated by a secret or a private_key_jwt assertion), with a
// workload's identity token (`jwt_bearer`, RFC 7523, the MCP workload identity extension), or with
// the user's ID token from the enterprise's identity provider (`enterprise`, enterprise-managed
// authorization, SEP-990): exchanged there for an ID-JAG (RFC 8693), which the server's
// authorization server takes as a jwt-bearer grant. Tokens are read at each token request, since
// such tokens rotate (a Kubernetes projected token file, an SSO agent's ID token).
import { discoverAndRequestJwtAuthGrant, requestJwtAuthorizationGrant, type FetchLike } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errorMessage';
import { nodeFileSystem, type EnterpriseIdp, type OAuthSettings } from '../config';
import { SignInRequiredError } from './errors';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** More than any identity token: a bigger file is not one. */
const MAX_ASSERTION_BYTES = 64 * 1024;

export function isUnattended(settings: OAuthSettings): boolean {
  return settings.grant !== 'authorization_code';
}

/** The grant types a registration asks for (the ones this entry uses). */
export function grantTypes(settings: OAuthSettings): string[] {
  switch (settings.grant) {
    case 'client_credentials':
      return ['client_credentials'];
    case 'jwt_bearer':
    case 'enterprise':
      return [JWT_BEARER];
    case 'authorization_code':
      return ['authorization_code', 'refresh_token'];
  }
}

/** Who a grant is for: the server's authorization server (issuer) and resource, from discovery. */
export interface GrantTarget {
  readonly audience: string | undefined;
  readonly resource: string | undefined;
  readonly fetchFn?: FetchLike;
}

/** The token request of an unattended sign-in; undefined for a person's (authorization code). */
export async function unattendedTokenRequest(
  settings: OAuthSettings,
  scope: string | undefined,
  target: GrantTarget,
): Promise<URLSearchParams | undefined> {
  const scoped: Record<string, string> = scope ? { scope } : {};
  switch (settings.grant) {
    case 'client_credentials':
      return new URLSearchParams({ grant_type: 'client_credentials', ...scoped });
    case 'jwt_bearer':
      return new URLSearchParams({
        grant_type: JWT_BEARER,
        assertion: await tokenOf(settings.assertion, settings.assertionFile, 'the workload identity token'),
        ...scoped,
      });
    case 'enterprise':
      return new URLSearchParams({ grant_type: JWT_BEARER, assertion: await idJagFor(settings.idp, scope, target), ...scoped });
    case 'authorization_code':
      return undefined;
  }
}

/** The user's ID token exchanged at the identity provider for an ID-JAG naming this server (RFC 8693). */
async function idJagFor(idp: EnterpriseIdp | undefined, scope: string | undefined, target: GrantTarget): Promise<string> {
  if (!idp) throw new SignInRequiredError('refused', 'the "enterprise" grant needs its "idp"');
  const { audience, resource } = target;
  if (audience === undefined || resource === undefined)
    throw new SignInRequiredError(
      'refused',
      'the server did not say which authorization server and resource it is (protected resource metadata)',
    );
  const idToken = await tokenOf(idp.idToken, idp.idTokenFile, 'the ID token from the identity provider');
  const request = {
    audience,
    resource,
    idToken,
    clientId: idp.clientId,
    ...(idp.clientSecret ? { clientSecret: idp.clientSecret } : {}),
    ...(scope ? { scope } : {}),
    fetchFn: target.fetchFn,
  };
  try {
    const granted =
      idp.tokenEndpoint !== undefined
        ? await requestJwtAuthorizationGrant({ ...request, tokenEndpoint: idp.tokenEndpoint })
        : await discoverAndRequestJwtAuthGrant({ ...request, idpUrl: idp.issuer ?? '' });
    return granted.jwtAuthGrant;
  } catch (error) {
    throw new SignInRequiredError('refused', `the identity provider did not exchange the ID token for a grant: ${errorMessage(error)}`);
  }
}

/** A token given in the settings, or read (bounded) from the file that keeps it. */
async function tokenOf(value: string | undefined, file: string | undefined, what: string): Promise<string> {
  if (value !== undefined) return value;
  const path = file ?? '';
  // Bounded before it is read, as every file the configuration names.
  const read = await nodeFileSystem.readText(path, MAX_ASSERTION_BYTES);
  if (read.kind !== 'ok')
    throw new SignInRequiredError(
      'refused',
      `${what} in ${path} cannot be read: ${read.kind === 'missing' ? 'no such file' : read.message}`,
    );
  const text = read.text.trim();
  if (text === '') throw new SignInRequiredError('refused', `${what} file ${path} is empty`);
  return text;
}
