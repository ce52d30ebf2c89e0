// An interactive sign-in: the one path on which a browser opens. The SDK builds the authorization
// request; the host opens it and waits for the redirect to come back with the same `state`.
import { auth, computeScopeUnion, type FetchLike } from '@modelcontextprotocol/client';
import type { Clock, TimerHandle } from '../base/clock';
import { SignInFailedError } from './errors';
import type { SwitchboardOAuthProvider } from './oauthProvider';

/** How a host shows the authorization page and receives its redirect. */
export interface SignInBrowser {
  /** The redirect URI of this sign-in: the editor's URI handler, or a loopback server of the CLI. */
  readonly redirectUrl: string;
  open(authorizationUrl: URL): Promise<void>;
  /** The query of the redirect that carries `state`. */
  waitForCallback(state: string): Promise<URLSearchParams>;
}

export interface SignInOptions {
  readonly serverUrl: string;
  readonly browser: SignInBrowser;
  /** A wider scope asked for by the server (step-up), or a sign-in after refused tokens: skip refresh. */
  readonly scope?: string;
  readonly fresh?: boolean;
  readonly fetch?: FetchLike;
}

/** Signs in; resolves once tokens are saved. Refreshing counts: no browser when that is enough. */
export async function signIn(provider: SwitchboardOAuthProvider, options: SignInOptions): Promise<'refreshed' | 'signedIn'> {
  const { serverUrl, browser } = options;
  // A step-up keeps what was granted: the new scope is the union, or the old grant is lost.
  // Otherwise the scope the server's 401 asked for, if it named one.
  const challenge = provider.lastChallenge;
  const scope = options.scope ? computeScopeUnion(await provider.grantedScope(), options.scope) : challenge.scope;
  // Discovery again: the server may have moved to another authorization server since.
  await provider.invalidateCredentials('discovery');
  const fetchFn = options.fetch ? { fetchFn: options.fetch } : {};
  // The wait starts before the browser opens: a fast redirect must find it.
  let callback: Promise<URLSearchParams> | undefined;
  const open = async (url: URL) => {
    const state = url.searchParams.get('state');
    if (!state) throw new SignInFailedError('the authorization request carried no state');
    callback = browser.waitForCallback(state);
    callback.catch(() => undefined);
    await browser.open(url);
  };
  return provider.withInteractiveSignIn({ redirectUrl: browser.redirectUrl, open, ...(scope ? { scope } : {}) }, async () => {
    const first = await auth(provider, {
      serverUrl,
      ...fetchFn,
      ...(scope ? { scope } : {}),
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      ...(options.fresh || options.scope ? { forceReauthorization: true } : {}),
    });
    if (first === 'AUTHORIZED') return 'refreshed';
    if (!callback) throw new SignInFailedError('the authorization page was never opened');
    const params = await callback;
    const error = params.get('error');
    if (error) {
      const description = params.get('error_description');
      throw new SignInFailedError(`the authorization server answered ${error}${description ? `: ${description}` : ''}`, error);
    }
    const code = params.get('code');
    if (!code) throw new SignInFailedError('the redirect carried no authorization code');
    const iss = params.get('iss') ?? undefined;
    const second = await auth(provider, { serverUrl, authorizationCode: code, ...(iss === undefined ? {} : { iss }), ...fetchFn });
    if (second !== 'AUTHORIZED') throw new SignInFailedError('the authorization code was not accepted');
    return 'signedIn';
  });
}

/** Sign-ins waiting at once; more is a hostile or broken caller. */
const MAX_PENDING = 32;
export const SIGN_IN_TIMEOUT_MS = 10 * 60_000;

/**
 * Hands each redirect to the sign-in waiting for its `state`. A redirect with an unknown state is
 * dropped: it cannot complete or disturb anyone's sign-in.
 */
export class CallbackRouter {
  private readonly pending = new Map<
    string,
    { resolve: (params: URLSearchParams) => void; reject: (error: Error) => void; timer: TimerHandle }
  >();

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs = SIGN_IN_TIMEOUT_MS,
  ) {}

  waitFor(state: string): Promise<URLSearchParams> {
    if (this.pending.size >= MAX_PENDING)
      return Promise.reject(new SignInFailedError(`more than ${MAX_PENDING} sign-ins are waiting; finish or cancel one first`));
    return new Promise((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.pending.delete(state);
        reject(new SignInFailedError(`no redirect came back within ${Math.round(this.timeoutMs / 60_000)} minutes; sign in again`));
      }, this.timeoutMs);
      this.pending.set(state, { resolve, reject, timer });
    });
  }

  /** True when a sign-in was waiting for this redirect. */
  deliver(params: URLSearchParams): boolean {
    const state = params.get('state');
    const waiting = state === null ? undefined : this.pending.get(state);
    if (!waiting || state === null) return false;
    this.pending.delete(state);
    this.clock.clearTimeout(waiting.timer);
    waiting.resolve(params);
    return true;
  }

  cancelAll(reason: string): void {
    for (const [state, waiting] of this.pending) {
      this.clock.clearTimeout(waiting.timer);
      waiting.reject(new SignInFailedError(reason));
      this.pending.delete(state);
    }
  }
}
