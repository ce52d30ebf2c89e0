// How an unattended sign-in asks for a token, without a browser: with the client's own credentials
// (`client_credentials`, authenticated by a secret or a private_key_jwt assertion), or with a
// workload's identity token (`jwt_bearer`, RFC 7523, the MCP workload identity extension), which
// is read at each token request, since such tokens rotate (a Kubernetes projected token file).
import { nodeFileSystem } from '../config/fileSystem';
import type { OAuthSettings } from '../config/types';
import { SignInRequiredError } from './errors';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** More than any identity token: a bigger file is not one. */
const MAX_ASSERTION_BYTES = 64 * 1024;

export function isUnattended(settings: OAuthSettings): boolean {
  return settings.grant === 'client_credentials' || settings.grant === 'jwt_bearer';
}

/** The grant types a registration asks for (the ones this entry uses). */
export function grantTypes(settings: OAuthSettings): string[] {
  switch (settings.grant) {
    case 'client_credentials':
      return ['client_credentials'];
    case 'jwt_bearer':
      return [JWT_BEARER];
    case 'authorization_code':
      return ['authorization_code', 'refresh_token'];
  }
}

/** The token request of an unattended sign-in; undefined for a person's (authorization code). */
export async function unattendedTokenRequest(settings: OAuthSettings, scope: string | undefined): Promise<URLSearchParams | undefined> {
  const scoped: Record<string, string> = scope ? { scope } : {};
  switch (settings.grant) {
    case 'client_credentials':
      return new URLSearchParams({ grant_type: 'client_credentials', ...scoped });
    case 'jwt_bearer':
      return new URLSearchParams({ grant_type: JWT_BEARER, assertion: await assertionOf(settings), ...scoped });
    case 'authorization_code':
      return undefined;
  }
}

async function assertionOf(settings: OAuthSettings): Promise<string> {
  if (settings.assertion !== undefined) return settings.assertion;
  const file = settings.assertionFile ?? '';
  // Bounded before it is read, as every file the configuration names.
  const read = await nodeFileSystem.readText(file, MAX_ASSERTION_BYTES);
  if (read.kind !== 'ok') throw new SignInRequiredError('refused', `the workload identity token in ${file} cannot be read: ${read.kind === 'missing' ? 'no such file' : read.message}`);
  const text = read.text.trim();
  if (text === '') throw new SignInRequiredError('refused', `the workload identity token file ${file} is empty`);
  return text;
}
