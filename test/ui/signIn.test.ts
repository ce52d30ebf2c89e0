// Signing in to a remote MCP server in the real editor, as a user does: the row says it needs a
// sign-in (with one notice), Sign In opens the authorization server's page in the browser, the
// user logs in there, and the redirect comes back through the extension's URI handler
// (asExternalUri, here code-server's callback route) until the row turns running.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Page } from 'playwright-core';
import { activityBarEntry, openWorkbench, runFromPalette, screenshot, treeRow, type Workbench } from './workbench';

const fixtureMain = path.resolve(__dirname, '../fixtures/oauth-main.mjs');

/** The MCP server behind oidc-provider, as a process of its own: what a remote server is. */
async function startOAuthServer(): Promise<{ child: ChildProcess; mcpUrl: string; issuer: string }> {
  // The authorization server at [::1]: loopback, and an address the SDK lets tokens go to over
  // plain HTTP, but not one code-server takes for its own machine's. It sends 127.0.0.1 and
  // localhost addresses that an extension opens through its port proxy (/proxy/<port>/), which a
  // remote provider never meets and this one's absolute redirects would not survive.
  const child = spawn(process.execPath, [fixtureMain, '--as-host', '::1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    if (!child.stdout) return reject(new Error('no stdout'));
    readline.createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the OAuth fixture exited with ${code}`)));
  });
  return { child, ...(JSON.parse(first) as { mcpUrl: string; issuer: string }) };
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('signing in to a remote server (UI)', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let server: Awaited<ReturnType<typeof startOAuthServer>>;

  before(async function () {
    this.timeout(120_000);
    server = await startOAuthServer();
    workbench = await openWorkbench('basic', {
      userSettings: { 'mcpSwitchboard.servers': { notes: { type: 'http', url: server.mcpUrl } } },
    });
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
    // A headless, unfocused workbench files notifications in the center instead of toasting them.
    await runFromPalette(page, 'Notifications: Show Notifications');
    const notices = page.locator('.notifications-center .notification-list-item', { hasText: 'MCP server "notes" needs you to sign in.' });
    await notices.first().waitFor({ timeout: 30_000 });
    assert.equal(await notices.count(), 1, 'one notice');
    assert.ok(await notices.locator('.monaco-button', { hasText: 'Sign In' }).isVisible());
    await runFromPalette(page, 'Notifications: Hide Notifications');
    await row.hover();
    const hover = page.locator('.monaco-hover', { hasText: 'Sign-in' }).first();
    await hover.waitFor({ timeout: 15_000 });
    assert.match(
      await hover.innerText(),
      /notes — needs sign-in[\s\S]*Sign-in: the server asks you to sign in \(OAuth\)[\s\S]*click Sign In on the row/,
    );
    await screenshot(page, 'needs-sign-in');
    await page.mouse.move(700, 600);

    const opened = page.context().waitForEvent('page', { timeout: 60_000 });
    await row.hover();
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

    await row.locator('.label-description', { hasText: /^running · 2 tools$/ }).waitFor({ timeout: 60_000 });
    await page.bringToFront();
    await screenshot(page, 'signed-in');
    await runFromPalette(page, 'Notifications: Show Notifications');
    await page.locator('.notifications-center .notification-list-item', { hasText: 'signed in to "notes"' }).waitFor({ timeout: 30_000 });
    await runFromPalette(page, 'Notifications: Hide Notifications');

    // The tokens are in SecretStorage: not in settings, logs, or anything else the editor wrote.
    const issued = (await (await fetch(new URL('/control/issued-tokens', server.mcpUrl))).json()) as string[];
    assert.ok(issued.length >= 2, 'an access and a refresh token were issued');
    const leaks = filesUnder(workbench.userDataDir).filter((file) =>
      issued.some((token) => fs.readFileSync(file, 'latin1').includes(token)),
    );
    assert.deepEqual(leaks, [], 'a token was written to disk');
  });

  it('signs out from the palette: the tokens are forgotten and the row needs a sign-in again', async () => {
    const { page } = workbench;
    await runFromPalette(page, 'MCP Switchboard: Sign Out', { opensQuickInput: true });
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'notes' }).first().click();
    await treeRow(page, 'notes')
      .locator('.label-description', { hasText: /^needs sign-in$/ })
      .waitFor({ timeout: 30_000 });
  });
});
