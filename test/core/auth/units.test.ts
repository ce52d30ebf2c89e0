// The parts of sign-in that need no server: where credentials are kept and how redirects are matched.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CallbackRouter,
  credentialKey,
  FileSecretStore,
  MemorySecretStore,
  ServerCredentials,
  SignInFailedError,
  userConfigFolder,
} from '../../../src/core/auth';
import { FakeClock } from '../support/fakeClock';

describe('auth: FileSecretStore', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-secrets-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates a 0600 file in a 0700 folder and keeps values across instances', async () => {
    const file = path.join(dir, 'nested', 'credentials.json');
    await new FileSecretStore(file).set('a', 'one');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    const again = new FileSecretStore(file);
    assert.equal(await again.get('a'), 'one');
    await again.delete('a');
    assert.deepEqual(await again.keys(), []);
  });

  it('narrows a file an older version left readable by others', async () => {
    const file = path.join(dir, 'credentials.json');
    fs.writeFileSync(file, '{}', { mode: 0o644 });
    await new FileSecretStore(file).set('k', 'v');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it('serializes concurrent writes: none is lost', async () => {
    const store = new FileSecretStore(path.join(dir, 'credentials.json'));
    await Promise.all(Array.from({ length: 20 }, (_, index) => store.set(`k${index}`, String(index))));
    assert.equal((await store.keys()).length, 20);
  });

  it('ignores what is not a string map, and refuses an oversized file instead of parsing it', async () => {
    const file = path.join(dir, 'credentials.json');
    fs.writeFileSync(file, JSON.stringify({ ok: 'yes', bad: 3, __proto__: 'x' }));
    const store = new FileSecretStore(file);
    assert.equal(await store.get('ok'), 'yes');
    assert.equal(await store.get('bad'), undefined);
    fs.writeFileSync(file, `"${'x'.repeat(5 * 1024 * 1024)}"`);
    await assert.rejects(store.get('ok'), /larger than/);
  });

  it('finds the user config folder per platform', () => {
    assert.equal(userConfigFolder({ XDG_CONFIG_HOME: '/x' }, 'linux', '/home/u'), path.join('/x', 'mcp-switchboard'));
    assert.equal(userConfigFolder({}, 'linux', '/home/u'), path.join('/home/u', '.config', 'mcp-switchboard'));
    assert.equal(userConfigFolder({}, 'darwin', '/Users/u'), path.join('/Users/u', 'Library', 'Application Support', 'mcp-switchboard'));
    assert.equal(
      userConfigFolder({ APPDATA: 'C:\\AppData' }, 'win32', 'C:\\Users\\u'),
      path.win32.join('C:\\AppData', 'mcp-switchboard'),
      'a Windows path on Windows, whatever this machine is',
    );
  });
});

describe('auth: ServerCredentials', () => {
  it('keeps tokens and registrations apart per issuer; a request reads the last saved', async () => {
    const store = new MemorySecretStore();
    const credentials = new ServerCredentials(store, credentialKey('https://mcp.example.com/mcp#x'));
    assert.equal(credentials.key, 'oauth:https://mcp.example.com/mcp');
    await credentials.saveTokens('https://a.example', { access_token: 'A', token_type: 'Bearer' }, 1);
    await credentials.saveTokens('https://b.example', { access_token: 'B', token_type: 'Bearer' }, 2);
    await credentials.saveClient('https://a.example', { client_id: 'client-a' }, 'http://127.0.0.1/cb');
    assert.equal((await credentials.tokens('https://a.example'))?.tokens.access_token, 'A');
    assert.equal((await credentials.tokens())?.tokens.access_token, 'B');
    assert.equal(await credentials.client('https://b.example'), undefined, 'a client id of one issuer means nothing to another');
    const reread = new ServerCredentials(store, credentials.key);
    assert.equal((await reread.client('https://a.example'))?.redirectUrl, 'http://127.0.0.1/cb');
    await reread.forgetTokens();
    assert.equal(await reread.tokens(), undefined);
    assert.ok(await reread.client('https://a.example'), 'forgetting tokens keeps the registration');
    await reread.forgetClients();
    assert.deepEqual(await store.keys(), [], 'an empty record is deleted, not kept');
  });

  it('drops a damaged record instead of failing', async () => {
    const store = new MemorySecretStore();
    await store.set('oauth:https://x/mcp', '{not json');
    assert.equal(await new ServerCredentials(store, 'oauth:https://x/mcp').tokens(), undefined);
    await store.set('oauth:https://x/mcp', JSON.stringify({ tokens: { i: { tokens: { access_token: 5 }, savedAt: 1 } } }));
    assert.equal(await new ServerCredentials(store, 'oauth:https://x/mcp').tokens('i'), undefined);
  });
});

describe('auth: CallbackRouter', () => {
  it('hands a redirect to the sign-in waiting for its state, and drops any other', async () => {
    const router = new CallbackRouter(new FakeClock());
    const waiting = router.waitFor('s1');
    assert.equal(router.deliver(new URLSearchParams('code=c&state=other')), false);
    assert.equal(router.deliver(new URLSearchParams('code=c')), false);
    assert.equal(router.deliver(new URLSearchParams('code=c&state=s1')), true);
    assert.equal((await waiting).get('code'), 'c');
    assert.equal(router.deliver(new URLSearchParams('code=c&state=s1')), false, 'a replayed redirect finds nobody');
  });

  it('gives up after its timeout, on the injected clock', async () => {
    const clock = new FakeClock();
    const router = new CallbackRouter(clock, 60_000);
    const waiting = router.waitFor('s');
    clock.advance(59_999);
    clock.advance(1);
    await assert.rejects(waiting, (error: unknown) => error instanceof SignInFailedError && /no redirect came back/.test(error.message));
    assert.equal(clock.pendingTimers, 0);
  });

  it('bounds the sign-ins waiting at once, and cancels them all on dispose', async () => {
    const router = new CallbackRouter(new FakeClock());
    const waits = Array.from({ length: 32 }, (_, index) => router.waitFor(`s${index}`));
    await assert.rejects(router.waitFor('one-too-many'), /more than 32 sign-ins/);
    router.cancelAll('closing');
    for (const wait of waits) await assert.rejects(wait, /closing/);
  });
});
