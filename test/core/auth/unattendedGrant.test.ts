// The token request of an unattended sign-in: a workload identity token read from its file at each
// request (such tokens rotate), refused with the reason when the file cannot be read; and the
// enterprise grant, the user's ID token exchanged at an identity provider (a local HTTP one here;
// the suite's own is graded in test/conformance, auth/enterprise-managed-authorization).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JWT_BEARER, unattendedTokenRequest } from '../../../src/core/auth/unattendedGrant';
import { SignInRequiredError } from '../../../src/core/connection/link/errors';

const NO_TARGET = { audience: undefined, resource: undefined };

/** An identity provider's token endpoint: answers a token exchange with an ID-JAG naming the subject token. */
async function identityProvider(): Promise<{ url: string; requests: URLSearchParams[]; close(): Promise<void> }> {
  const requests: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      requests.push(form);
      if (form.get('subject_token') === 'revoked') {
        res
          .writeHead(400, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_grant', error_description: 'the ID token was revoked' }));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          access_token: `jag-for-${form.get('subject_token')}`,
          issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
          token_type: 'N_A',
          expires_in: 300,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/token`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('unattended token requests (auth/unattendedGrant)', () => {
  it('client_credentials asks with the scope; an authorization code sign-in has none of its own', async () => {
    assert.equal(
      String(await unattendedTokenRequest({ enabled: true, grant: 'client_credentials' }, 'read', NO_TARGET)),
      'grant_type=client_credentials&scope=read',
    );
    assert.equal(await unattendedTokenRequest({ enabled: true, grant: 'authorization_code' }, undefined, NO_TARGET), undefined);
  });

  it('jwt_bearer reads the token file at each request, so a rotated token is the one sent', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-'));
    try {
      const file = path.join(dir, 'token');
      const settings = { enabled: true, grant: 'jwt_bearer' as const, clientId: 'w', assertionFile: file };
      fs.writeFileSync(file, 'first.jwt\n');
      const first = await unattendedTokenRequest(settings, undefined, NO_TARGET);
      assert.equal(first?.get('grant_type'), JWT_BEARER);
      assert.equal(first?.get('assertion'), 'first.jwt');
      fs.writeFileSync(file, 'second.jwt');
      assert.equal((await unattendedTokenRequest(settings, undefined, NO_TARGET))?.get('assertion'), 'second.jwt');
      fs.rmSync(file);
      await assert.rejects(
        unattendedTokenRequest(settings, undefined, NO_TARGET),
        (error: unknown) => error instanceof SignInRequiredError && /cannot be read/.test((error as Error).message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('enterprise exchanges the ID token (read from its file at each request) for an ID-JAG naming this server, and sends that as the grant', async () => {
    const idp = await identityProvider();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idp-'));
    try {
      const file = path.join(dir, 'id_token');
      const settings = {
        enabled: true,
        grant: 'enterprise' as const,
        clientId: 'mcp-client',
        idp: { tokenEndpoint: idp.url, clientId: 'idp-client', clientSecret: 'idp-secret', idTokenFile: file },
      };
      const target = { audience: 'https://as.example.com', resource: 'https://mcp.example.com/mcp' };
      fs.writeFileSync(file, 'first.id.token\n');
      const first = await unattendedTokenRequest(settings, 'read', target);
      assert.equal(first?.get('grant_type'), JWT_BEARER);
      assert.equal(first?.get('assertion'), 'jag-for-first.id.token');
      assert.equal(first?.get('scope'), 'read');
      const exchange = idp.requests[0];
      assert.equal(exchange?.get('grant_type'), 'urn:ietf:params:oauth:grant-type:token-exchange');
      assert.equal(exchange?.get('requested_token_type'), 'urn:ietf:params:oauth:token-type:id-jag');
      assert.equal(exchange?.get('subject_token_type'), 'urn:ietf:params:oauth:token-type:id_token');
      assert.equal(exchange?.get('audience'), target.audience);
      assert.equal(exchange?.get('resource'), target.resource);
      fs.writeFileSync(file, 'second.id.token');
      assert.equal(
        (await unattendedTokenRequest(settings, undefined, target))?.get('assertion'),
        'jag-for-second.id.token',
        'a rotated ID token is the one exchanged',
      );
      fs.writeFileSync(file, 'revoked');
      await assert.rejects(
        unattendedTokenRequest(settings, undefined, target),
        (error: unknown) =>
          error instanceof SignInRequiredError && /identity provider did not exchange the ID token/.test((error as Error).message),
      );
      await assert.rejects(
        unattendedTokenRequest(settings, undefined, NO_TARGET),
        (error: unknown) =>
          error instanceof SignInRequiredError && /which authorization server and resource/.test((error as Error).message),
      );
    } finally {
      await idp.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
