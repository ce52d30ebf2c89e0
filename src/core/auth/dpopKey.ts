// The DPoP signing key of one server's credentials (RFC 9449): made once, kept in the secret store
// with the tokens it binds (an access or refresh token bound to a key that is gone is useless),
// and read back as the SDK's DpopSession. ES256, the algorithm every DPoP server supports.
import { createHash, webcrypto, type JsonWebKey } from 'node:crypto';
import { DpopSession, generateDpopKeyPair, type DpopKeyPair } from '@modelcontextprotocol/client';
import type { SavedDpopKey, ServerCredentials } from './credentials';

const ES256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** RFC 7638: the SHA-256 of the required members, in order, base64url. */
function thumbprint(jwk: JsonWebKey): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');
}

async function importKey(saved: SavedDpopKey): Promise<DpopKeyPair> {
  const { d: _private, key_ops: _ops, ext: _ext, ...publicJwk } = saved.jwk;
  const privateKey = await webcrypto.subtle.importKey('jwk', saved.jwk, ES256, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('jwk', publicJwk, ES256, true, ['verify']);
  const jwk = { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y };
  return { privateKey, publicKey, publicJwk: jwk as DpopKeyPair['publicJwk'], thumbprint: thumbprint(jwk), alg: 'ES256' };
}

/** The server's DPoP session: its saved key, or a new one, saved first. A damaged key is replaced. */
export async function dpopSessionFor(credentials: ServerCredentials): Promise<DpopSession> {
  const saved = await credentials.dpopKey();
  if (saved) {
    const keyPair = await importKey(saved).catch(() => undefined);
    if (keyPair) return DpopSession.create({ keyPair });
  }
  const fresh = await generateDpopKeyPair({ alg: 'ES256', extractable: true });
  const jwk = await webcrypto.subtle.exportKey('jwk', fresh.privateKey);
  await credentials.saveDpopKey({ alg: 'ES256', jwk: { ...jwk } });
  return DpopSession.create({ keyPair: fresh });
}
