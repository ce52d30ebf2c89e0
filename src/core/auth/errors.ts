// Why a server cannot be used until somebody signs in. Thrown by the OAuth provider where the SDK
// would otherwise go on to a browser redirect (or register a client) without anyone watching.

import type { SignInReason } from '../state/serverState';

export type { SignInReason };

export class SignInRequiredError extends Error {
  constructor(
    readonly reason: SignInReason,
    message: string,
    /** The scope the authorization request would ask for, when the server named one. */
    readonly scope?: string,
  ) {
    super(message);
    this.name = 'SignInRequiredError';
  }
}

/** The interactive sign-in itself failed: denied at the provider, timed out, a bad callback. */
export class SignInFailedError extends Error {
  constructor(
    message: string,
    /** The OAuth `error` code from the callback or the token endpoint, when there was one. */
    readonly oauthError?: string,
  ) {
    super(message);
    this.name = 'SignInFailedError';
  }
}

/** The SignInRequiredError anywhere in an error's cause chain (the SDK may wrap what we threw). */
export function findSignInRequired(error: unknown): SignInRequiredError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    if (current instanceof SignInRequiredError) return current;
    current = current.cause;
  }
  return undefined;
}
