// The team gateway's policy: which servers and tools a principal may see, from their token's claims.
import assert from 'node:assert/strict';
import { AccessPolicy, type Principal } from '../../../src/core/identity';

function principal(subject: string, claims: Record<string, unknown> = {}, scopes: string[] = []): Principal {
  return { issuer: 'https://idp.test', subject, key: `https://idp.test ${subject}`, clientId: undefined, scopes, claims, expiresAt: 0 };
}

describe('identity: access policy', () => {
  const policy = AccessPolicy.parse({
    groupsClaim: 'roles',
    rules: [
      { name: 'admins', match: { scopes: ['mcp:admin'] }, allow: { servers: ['*'] } },
      { match: { groups: ['dev'] }, allow: { servers: ['git*'], tools: ['read_*', 'status'] } },
      { match: { claims: { tenant: ['acme'] } }, allow: { servers: ['tickets'] } },
      { name: 'no prod for interns', match: { groups: ['intern'] }, deny: { servers: ['prod-*'] } },
      { name: 'nobody drops', deny: { servers: ['*'], tools: ['drop_*'] } },
    ],
  });

  it('allows what a matching rule allows, by scope, group (the named claim) or any claim', () => {
    const admin = policy.grantFor(principal('root', {}, ['mcp:admin']));
    assert.ok(admin.allowsTool('prod-db', 'query'));
    assert.ok(!admin.allowsTool('prod-db', 'drop_table'), 'a deny of every user beats every allow');
    assert.equal(admin.denialOf('prod-db', 'drop_table'), 'nobody drops');

    const dev = policy.grantFor(principal('dee', { roles: ['dev'], groups: ['admins'] }));
    assert.ok(dev.allowsServer('github') && dev.allowsTool('github', 'read_file') && dev.allowsTool('gitlab', 'status'));
    assert.ok(!dev.allowsTool('github', 'push'));
    assert.equal(dev.denialOf('github', 'push'), 'no rule allows it');
    assert.ok(!dev.allowsServer('tickets'), '`groups` is read from the configured claim only');

    const acme = policy.grantFor(principal('ann', { tenant: 'acme' }));
    assert.ok(acme.allowsTool('tickets', 'create') && !acme.allowsServer('github'));
    assert.ok(!policy.grantFor(principal('zed', { tenant: ['other', 'acmex'] })).allowsServer('tickets'));
  });

  it('hides a server that a deny names without tools, however much else allows it', () => {
    const intern = policy.grantFor(principal('ivy', { roles: ['intern'] }, ['mcp:admin']));
    assert.ok(!intern.allowsServer('prod-api') && !intern.allowsTool('prod-api', 'query'));
    assert.ok(intern.allowsServer('staging'));
  });

  it('gives principals that match the same rules the same grant', () => {
    const a = policy.grantFor(principal('a', { roles: ['dev'] }));
    const b = policy.grantFor(principal('b', { roles: ['dev'], other: 1 }));
    assert.equal(a, b);
    assert.notEqual(a.key, policy.grantFor(principal('c', { roles: ['intern'] })).key);
  });

  it('refuses a malformed policy, naming where', () => {
    assert.throws(() => AccessPolicy.parse({ rules: [{ allow: { servers: [] } }] }), /rules\.0\.allow\.servers/);
    assert.throws(() => AccessPolicy.parse({ rules: [{ allow: { servers: ['a'] }, extra: 1 }] }), /rules\.0/);
    assert.throws(() => AccessPolicy.parse({ rules: [{ match: { groups: ['x'] } }] }), /either "allow" or "deny"/);
    assert.throws(() => AccessPolicy.parse({ rules: Array.from({ length: 513 }, () => ({ allow: { servers: ['a'] } })) }), /rules/);
    assert.throws(() => AccessPolicy.parse({ rules: [{ allow: { servers: ['a'.repeat(300)] } }] }), /servers\.0/);
  });
});
