// The DPoP key a server's tokens are bound to outlives the process: a restart (a new provider on
// the same secret store) signs with the same key, whose thumbprint the tokens carry as cnf.jkt.
import assert from 'node:assert/strict';
import { MemorySecretStore } from '../../../src/core/auth';
import { credentialKey, ServerCredentials } from '../../../src/core/auth/credentials';
import { dpopSessionFor } from '../../../src/core/auth/dpopKey';

const SERVER = 'https://mcp.example.com/mcp';

describe('DPoP key (auth/dpopKey)', () => {
  it('is made once, kept in the secret store, and read back as the same key after a restart', async () => {
    const store = new MemorySecretStore();
    const first = await dpopSessionFor(new ServerCredentials(store, credentialKey(SERVER)));
    const saved = JSON.parse((await store.get(credentialKey(SERVER))) ?? '{}') as { dpop?: { alg?: string; jwk?: { d?: string } } };
    assert.equal(saved.dpop?.alg, 'ES256');
    assert.equal(typeof saved.dpop?.jwk?.d, 'string', 'the private key is in the secret store, not elsewhere');
    const again = await dpopSessionFor(new ServerCredentials(store, credentialKey(SERVER)));
    assert.equal(again.thumbprint, first.thumbprint);
    // And it still signs: a proof names the same key.
    const proof = await again.buildProof({ htm: 'POST', htu: SERVER });
    const header = JSON.parse(Buffer.from(proof.split('.')[0] ?? '', 'base64url').toString()) as { typ: string; jwk: { x: string } };
    assert.equal(header.typ, 'dpop+jwt');
    assert.equal(header.jwk.x, first.publicJwk.x);
  });

  it('a damaged key is replaced by a new one', async () => {
    const store = new MemorySecretStore();
    await store.set(
      credentialKey(SERVER),
      JSON.stringify({
        v: 1,
        tokens: {},
        clients: {},
        dpop: { alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', d: 'AA' } },
      }),
    );
    const session = await dpopSessionFor(new ServerCredentials(store, credentialKey(SERVER)));
    const saved = JSON.parse((await store.get(credentialKey(SERVER))) ?? '{}') as { dpop?: { jwk?: { x?: string } } };
    assert.notEqual(saved.dpop?.jwk?.x, 'AA');
    assert.equal(saved.dpop?.jwk?.x, session.publicJwk.x);
  });
});
