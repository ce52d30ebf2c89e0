// Completes a sign-in at the fixture's OpenID provider the way a person would in a browser: follow
// the redirects (keeping cookies), fill the development login page, and stop at the redirect URI.
// No shortcut into the provider: the same HTTP exchanges Chromium makes in the UI test.
import assert from 'node:assert/strict';
import type { CallbackRouter, SignInBrowser } from '../../../src/core/auth';

const REDIRECT = 'http://127.0.0.1:1/oauth/callback';

/** Plays the person at the browser: logs in at the provider (as `login`) and hands the redirect back. */
export class ScriptedBrowser implements SignInBrowser {
  readonly redirectUrl = REDIRECT;
  readonly opened: URL[] = [];
  /** The authorization codes the provider sent back: secrets that must never be logged. */
  readonly codes: string[] = [];
  constructor(
    private readonly router: CallbackRouter,
    private readonly login = 'alice',
  ) {}
  async open(url: URL): Promise<void> {
    this.opened.push(url);
    const callback = await loginAtProvider(url, REDIRECT, this.login);
    this.codes.push(callback.get('code') ?? '');
    assert.ok(this.router.deliver(callback), 'the redirect matched no waiting sign-in');
  }
  waitForCallback(state: string): Promise<URLSearchParams> {
    return this.router.waitFor(state);
  }
}

/** The query of the redirect to `redirectUrl`, once the provider sends the browser there. */
export async function loginAtProvider(authorizationUrl: URL, redirectUrl: string, login = 'alice'): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  const remember = (response: Response) => {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const index = pair?.indexOf('=') ?? -1;
      if (pair && index > 0) cookies.set(pair.slice(0, index), pair.slice(index + 1));
    }
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  let url = authorizationUrl.href;
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop += 1) {
    if (url.startsWith(redirectUrl)) return new URL(url).searchParams;
    const response = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: cookieHeader(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    remember(response);
    if (process.env.SWITCHBOARD_TEST_LOG)
      process.stderr.write(`[login] ${body ? 'POST' : 'GET'} ${url} -> ${response.status} ${response.headers.get('location') ?? ''}\n`);
    body = undefined;
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url).href;
      continue;
    }
    const html = await response.text();
    if (process.env.SWITCHBOARD_TEST_LOG)
      process.stderr.write(
        `[login] page: ${/name="prompt" value="([^"]+)"/.exec(html)?.[1]} cookies: ${[...cookies.keys()].join(',')} set: ${response.headers.getSetCookie().join(' | ')}\n`,
      );
    const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html);
    if (!form?.[1]) throw new Error(`the provider answered ${response.status} without a redirect or a form: ${html.slice(0, 300)}`);
    const fields = new URLSearchParams();
    for (const input of html.matchAll(/<input[^>]*name="([^"]+)"[^>]*>/gi)) {
      const name = input[1] ?? '';
      const value = /value="([^"]*)"/.exec(input[0])?.[1];
      fields.set(name, value ?? (name === 'password' ? 'secret' : login));
    }
    url = new URL(form[1].replace(/&amp;/g, '&'), url).href;
    body = fields;
  }
  throw new Error('the provider sent the browser through more than 20 redirects');
}
