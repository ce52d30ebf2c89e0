// Signing in to a remote MCP server in the real editor, as a user does: the row says it needs a
// sign-in (with one notice), Sign In opens the authorization server's page in the browser, the
// user logs in there, and the redirect comes back through the extension's URI handler
// (asExternalUri, here code-server's callback route) until the row turns running.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { Page } from 'playwright-core';
import { activityBarEntry, openWorkbench, screenshot, treeRow, type Workbench } from './workbench';

const fixtureMain = path.resolve(__dirname, '../fixtures/oauth-main.mjs');

/** The MCP server behind oidc-provider, as a process of its own: what a remote server is. */
async function startOAuthServer(): Promise<{ child: ChildProcess; mcpUrl: string; issuer: string }> {
  const child = spawn(process.execPath, [fixtureMain], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the OAuth fixture exited with ${code}`)));
  });
  return { child, ...(JSON.parse(first) as { mcpUrl: string; issuer: string }) };
}

describe('signing in to a remote server (UI)', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let server: Awaited<ReturnType<typeof startOAuthServer>>;

  before(async function () {
    this.timeout(120_000);
    server = await startOAuthServer();
    workbench = await openWorkbench('basic', { userSettings: { 'mcpSwitchboard.servers': { notes: { type: 'http', url: server.mcpUrl } } } });
  });

  after(async () => {
    await workbench?.close();
    server?.child.kill('SIGTERM');
  });

  it('shows needs sign-in, and Sign In through the provider’s login page turns the row running', async () => {
    const { page } = workbench;
    await activityBarEntry(page, 'MCP Switchboard').click();
    const row = treeRow(page, 'notes');
    await row.locator('.label-description', { hasText: /^needs sign-in$/ }).waitFor({ timeout: 60_000 });
    const notices = page.locator('.notification-toast', { hasText: 'MCP server "notes" needs you to sign in.' });
    await notices.first().waitFor({ timeout: 30_000 });
    assert.equal(await notices.count(), 1, 'one notice');
    await row.hover();
    await screenshot(page, 'needs-sign-in');

    const opened = page.context().waitForEvent('page', { timeout: 60_000 });
    await row.locator('.action-label[aria-label="Sign In"]').click();
    // The editor asks before it opens an outside address; a user says Open.
    const confirm = page.locator('.monaco-dialog-box', { hasText: 'open the external website' });
    const openButton = confirm.locator('.monaco-button', { hasText: /^Open$/ });
    await Promise.race([openButton.click({ timeout: 30_000 }), opened]).catch(() => undefined);
    const provider: Page = await opened;
    await provider.locator('input[name="login"]').waitFor({ timeout: 30_000 });
    assert.ok(provider.url().startsWith(server.issuer), `the provider's page, got ${provider.url()}`);
    await provider.locator('input[name="login"]').fill('alice');
    await provider.locator('input[name="password"]').fill('correct horse');
    await screenshot(provider, 'provider-login');
    await provider.locator('button[type="submit"]').click();
    await provider.locator('button', { hasText: 'Continue' }).click({ timeout: 30_000 });

    await row.locator('.label-description', { hasText: /^running · 2 tools · \d+ ms$/ }).waitFor({ timeout: 60_000 });
    await page.bringToFront();
    await page.locator('.notification-toast', { hasText: 'signed in to "notes"' }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'signed-in');
  });
});
