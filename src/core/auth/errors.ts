// Why a sign-in failed. (Why a server needs one, SignInRequiredError, is the connection's: the
// provider throws it, the connection recognises it.)

export { SignInRequiredError } from '../connection';

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
