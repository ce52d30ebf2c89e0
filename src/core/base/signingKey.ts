// A client's private key for `private_key_jwt` (RFC 7523): read once to check it is one, and to
// tell the JWS algorithm it signs with when the entry does not say (RFC 7518).
import { createPrivateKey, type KeyObject } from 'node:crypto';

const CURVES: Readonly<Record<string, string>> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

function algorithmOf(key: KeyObject): string | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RS256';
    case 'rsa-pss':
      return 'PS256';
    case 'ec':
      return CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    case 'ed25519':
      return 'EdDSA';
    default:
      return undefined;
  }
}

function familyOf(algorithm: string): string {
  if (algorithm === 'EdDSA') return 'ed25519';
  if (algorithm.startsWith('ES')) return 'ec';
  return 'rsa';
}

/** Why the key cannot sign with `algorithm` (or with any algorithm), or undefined when it can. Never quotes the key. */
export function signingKeyProblem(pem: string, algorithm?: string): string | undefined {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    return 'is not a private key in PEM (or DER) form that this machine can read';
  }
  const own = algorithmOf(key);
  if (own === undefined)
    return `is a ${key.asymmetricKeyType ?? 'unknown'} key, which signs with none of RS256, PS256, ES256/384/512 or EdDSA`;
  if (algorithm !== undefined && familyOf(algorithm) !== (key.asymmetricKeyType === 'rsa-pss' ? 'rsa' : key.asymmetricKeyType)) {
    return `is a ${key.asymmetricKeyType} key, which cannot sign with "${algorithm}" (it signs with ${own})`;
  }
  return undefined;
}

/** The algorithm the assertion is signed with: the configured one, else the key's own. */
export function signingAlgorithm(pem: string, configured?: string): string {
  return configured ?? algorithmOf(createPrivateKey(pem)) ?? 'RS256';
}
