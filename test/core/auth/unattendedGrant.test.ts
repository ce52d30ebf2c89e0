// The token request of an unattended sign-in: a workload identity token read from its file at each
// request (such tokens rotate), refused with the reason when the file cannot be read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JWT_BEARER, unattendedTokenRequest } from '../../../src/core/auth/unattendedGrant';
import { SignInRequiredError } from '../../../src/core/connection/errors';

describe('unattended token requests (auth/unattendedGrant)', () => {
  it('client_credentials asks with the scope; an authorization code sign-in has none of its own', async () => {
    assert.equal(String(await unattendedTokenRequest({ enabled: true, grant: 'client_credentials' }, 'read')), 'grant_type=client_credentials&scope=read');
    assert.equal(await unattendedTokenRequest({ enabled: true, grant: 'authorization_code' }, undefined), undefined);
  });

  it('jwt_bearer reads the token file at each request, so a rotated token is the one sent', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wif-'));
    try {
      const file = path.join(dir, 'token');
      const settings = { enabled: true, grant: 'jwt_bearer' as const, clientId: 'w', assertionFile: file };
      fs.writeFileSync(file, 'first.jwt\n');
      const first = await unattendedTokenRequest(settings, undefined);
      assert.equal(first?.get('grant_type'), JWT_BEARER);
      assert.equal(first?.get('assertion'), 'first.jwt');
      fs.writeFileSync(file, 'second.jwt');
      assert.equal((await unattendedTokenRequest(settings, undefined))?.get('assertion'), 'second.jwt');
      fs.rmSync(file);
      await assert.rejects(unattendedTokenRequest(settings, undefined), (error: unknown) => error instanceof SignInRequiredError && /cannot be read/.test((error as Error).message));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
