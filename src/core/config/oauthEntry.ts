// An entry's `oauth` block: how Switchboard signs in to a remote server that asks for OAuth. The
// grants (a person's authorization code, the client's own credentials, a workload's token) and
// how the client authenticates (a secret, a private_key_jwt assertion), checked together.
import { signingKeyProblem } from '../base/signingKey';
import type { ParsedEntry } from './entrySchema';
import type { FieldResolver } from './fieldResolver';
import type { ServerDiagnostics } from './serverDiagnostics';
import { DEFAULT_OAUTH, type EnterpriseIdp, type OAuthSettings } from './types';

export async function buildOAuth(entry: ParsedEntry, resolver: FieldResolver, diagnostics: ServerDiagnostics): Promise<OAuthSettings> {
  const block = entry.oauth;
  if (block === false) return { ...DEFAULT_OAUTH, enabled: false };
  if (block === undefined) return DEFAULT_OAUTH;
  const clientId = block.clientId === undefined ? undefined : await resolver.string(block.clientId, ['oauth', 'clientId']);
  const clientSecret = block.clientSecret === undefined ? undefined : await resolver.string(block.clientSecret, ['oauth', 'clientSecret']);
  const clientMetadataUrl =
    block.clientMetadataUrl === undefined ? undefined : await resolver.string(block.clientMetadataUrl, ['oauth', 'clientMetadataUrl']);
  const privateKey = block.privateKey === undefined ? undefined : await resolver.string(block.privateKey, ['oauth', 'privateKey']);
  const grant = block.grant ?? DEFAULT_OAUTH.grant;
  const keyJwt = block.tokenEndpointAuthMethod === 'private_key_jwt';
  if (clientSecret && !clientId)
    diagnostics.error(['oauth', 'clientSecret'], 'needs "clientId": a secret belongs to a pre-registered client');
  if (grant === 'client_credentials' && (!clientId || (!clientSecret && !keyJwt))) {
    diagnostics.error(
      ['oauth', 'grant'],
      '"client_credentials" needs a pre-registered "clientId", and a "clientSecret" or a "privateKey" with "tokenEndpointAuthMethod": "private_key_jwt"',
    );
  }
  if (keyJwt) checkKeyJwt(clientId, privateKey, block.signingAlgorithm, diagnostics);
  else if (privateKey !== undefined)
    diagnostics.error(['oauth', 'privateKey'], 'is used only with "tokenEndpointAuthMethod": "private_key_jwt"');
  const assertion = block.assertion === undefined ? undefined : await resolver.string(block.assertion, ['oauth', 'assertion']);
  const assertionFile =
    block.assertionFile === undefined ? undefined : await resolver.string(block.assertionFile, ['oauth', 'assertionFile']);
  checkWorkloadGrant(grant, clientId, assertion, assertionFile, diagnostics);
  const idp = await buildIdp(block.idp, grant, clientId, resolver, diagnostics);
  if (clientMetadataUrl !== undefined && !isClientMetadataUrl(clientMetadataUrl)) {
    diagnostics.error(['oauth', 'clientMetadataUrl'], 'must be an https URL with a path (a client ID metadata document)');
  }
  if (block.perUser !== undefined) {
    // The gateway's client at the server's authorization server makes the exchange.
    if (block.perUser === 'tokenExchange' && !clientId)
      diagnostics.error(
        ['oauth', 'perUser'],
        `"${block.perUser}" needs the "clientId" the server's authorization server knows the gateway by`,
      );
    if (block.dpop) diagnostics.error(['oauth', 'perUser'], 'cannot be used with "dpop": a user\'s token is a plain bearer token');
  }
  for (const [index, scope] of (block.scopes ?? []).entries()) {
    if (!/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope))
      diagnostics.error(['oauth', 'scopes', index], 'is not a valid OAuth scope (no spaces or quotes)');
  }
  return {
    enabled: true,
    grant,
    ...(clientId ? { clientId } : {}),
    ...(clientSecret ? { clientSecret } : {}),
    ...(block.scopes && block.scopes.length > 0 ? { scopes: block.scopes } : {}),
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    ...(block.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: block.tokenEndpointAuthMethod } : {}),
    ...(keyJwt && privateKey ? { privateKey, ...(block.signingAlgorithm ? { signingAlgorithm: block.signingAlgorithm } : {}) } : {}),
    ...(block.dpop ? { dpop: true } : {}),
    ...(grant === 'jwt_bearer' && assertion !== undefined ? { assertion } : {}),
    ...(grant === 'jwt_bearer' && assertionFile !== undefined ? { assertionFile } : {}),
    ...(idp ? { idp } : {}),
    ...(block.perUser ? { perUser: block.perUser } : {}),
  };
}

type IdpBlock = NonNullable<Exclude<ParsedEntry['oauth'], false | undefined>['idp']>;

/**
 * `enterprise` (enterprise-managed authorization) needs the client id the server's authorization
 * server knows, and the identity provider: where it is, Switchboard's client there, and one place
 * for the user's ID token. Nothing else takes an `idp`.
 */
async function buildIdp(
  block: IdpBlock | undefined,
  grant: OAuthSettings['grant'],
  clientId: string | undefined,
  resolver: FieldResolver,
  diagnostics: ServerDiagnostics,
): Promise<EnterpriseIdp | undefined> {
  if (grant !== 'enterprise') {
    if (block !== undefined) diagnostics.error(['oauth', 'idp'], 'is used only with "grant": "enterprise"');
    return undefined;
  }
  if (!clientId)
    diagnostics.error(['oauth', 'clientId'], '"enterprise" needs the "clientId" the server\'s authorization server knows Switchboard by');
  if (block === undefined) {
    diagnostics.error(
      ['oauth', 'idp'],
      '"enterprise" needs the identity provider: "idp": { "issuer", "clientId", "idToken" or "idTokenFile" }',
    );
    return undefined;
  }
  const field = (value: string | undefined, name: string) =>
    value === undefined ? Promise.resolve(undefined) : resolver.string(value, ['oauth', 'idp', name]);
  const [issuer, tokenEndpoint, idpClientId, clientSecret, idToken, idTokenFile] = await Promise.all([
    field(block.issuer, 'issuer'),
    field(block.tokenEndpoint, 'tokenEndpoint'),
    field(block.clientId, 'clientId'),
    field(block.clientSecret, 'clientSecret'),
    field(block.idToken, 'idToken'),
    field(block.idTokenFile, 'idTokenFile'),
  ]);
  for (const [name, url] of [
    ['issuer', issuer],
    ['tokenEndpoint', tokenEndpoint],
  ] as const) {
    if (url !== undefined && !isSecureUrl(url))
      diagnostics.error(['oauth', 'idp', name], 'must be an https URL (http only on this machine)');
  }
  if (issuer === undefined && tokenEndpoint === undefined)
    diagnostics.error(['oauth', 'idp'], 'needs "issuer" (its token endpoint is discovered) or "tokenEndpoint"');
  if (!idpClientId)
    diagnostics.error(['oauth', 'idp', 'clientId'], 'is the client Switchboard is registered as at the identity provider, and is needed');
  if ((idToken === undefined) === (idTokenFile === undefined))
    diagnostics.error(['oauth', 'idp'], 'needs the user\'s ID token: "idToken" (in ${env:...}) or "idTokenFile", one of them');
  if (!idpClientId) return undefined;
  return {
    clientId: idpClientId,
    ...(issuer !== undefined ? { issuer } : {}),
    ...(tokenEndpoint !== undefined ? { tokenEndpoint } : {}),
    ...(clientSecret ? { clientSecret } : {}),
    ...(idToken !== undefined ? { idToken } : {}),
    ...(idTokenFile !== undefined ? { idTokenFile } : {}),
  };
}

/** https, or http to this machine (an identity provider in a test, or behind a local agent). */
function isSecureUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
  } catch {
    return false;
  }
}

/** `jwt_bearer` (workload identity) needs the client id and one place for the workload's token; nothing else takes one. */
function checkWorkloadGrant(
  grant: OAuthSettings['grant'],
  clientId: string | undefined,
  assertion: string | undefined,
  assertionFile: string | undefined,
  diagnostics: ServerDiagnostics,
): void {
  if (grant !== 'jwt_bearer') {
    if (assertion !== undefined || assertionFile !== undefined)
      diagnostics.error(['oauth', assertion !== undefined ? 'assertion' : 'assertionFile'], 'is used only with "grant": "jwt_bearer"');
    return;
  }
  if (!clientId)
    diagnostics.error(['oauth', 'clientId'], '"jwt_bearer" needs the "clientId" the authorization server knows the workload by');
  if ((assertion === undefined) === (assertionFile === undefined)) {
    diagnostics.error(
      ['oauth', 'grant'],
      '"jwt_bearer" needs the workload\'s token: "assertion" (in ${env:...}) or "assertionFile", one of them',
    );
  }
}

/** `private_key_jwt` needs a pre-registered client and a private key this machine can read as one. */
function checkKeyJwt(
  clientId: string | undefined,
  privateKey: string | undefined,
  algorithm: string | undefined,
  diagnostics: ServerDiagnostics,
): void {
  if (!clientId) diagnostics.error(['oauth', 'clientId'], '"private_key_jwt" needs a pre-registered "clientId"');
  if (privateKey === undefined) {
    diagnostics.error(
      ['oauth', 'privateKey'],
      '"private_key_jwt" needs the client\'s "privateKey" (PEM; put it in ${env:...} or ${input:...}, not in the file)',
    );
    return;
  }
  const problem = signingKeyProblem(privateKey, algorithm);
  if (problem) diagnostics.error(['oauth', 'privateKey'], problem);
}

function isClientMetadataUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.pathname !== '/';
  } catch {
    return false;
  }
}
