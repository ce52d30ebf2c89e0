// A team gateway as a source, in the real editor: the user adds its URL to mcpSwitchboard.sources;
// the gateway is one row that needs a sign-in; Sign In goes through the team's identity provider
// (a real OpenID provider signing JWT access tokens) in the browser, and then the gateway's servers
// are rows of their own, running through it, with their source in the tooltip. The gateway is a
// real `mcp-switchboard serve` process with OAuth, on loopback.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { TeamIdp } from '../fixtures/team-idp.mjs' with { 'resolution-mode': 'import' };
import { startServe, tempCacheHome } from '../core/cli/helpers';
import { Cleanup } from '../core/connection/helpers';
import { buildCli, tempWorkspace } from '../core/doctor/helpers';
import { freePort } from '../core/support/ports';
import { activityBarEntry, openWorkbench, rowTooltip, screenshot, treeRow, type Workbench } from './workbench';

const fixture = path.resolve(__dirname, '../fixtures/stdio-server.mjs');

describe('a team gateway as a source (UI)', function () {
  this.timeout(240_000);
  const cleanup = new Cleanup();
  let workbench: Workbench;
  let idp: TeamIdp;
  let base = '';

  before(async function () {
    this.timeout(180_000);
    buildCli();
    // On [::1], as in signIn.test.ts: a loopback address the browser reaches directly, not through
    // code-server's port proxy.
    idp = await (await import('../fixtures/team-idp.mjs')).startTeamIdp({ interactive: true, host: '::1' });
    cleanup.add(() => idp.close());
    const ws = tempWorkspace(cleanup);
    const config = ws.file('team.json');
    const server = (name: string) => ({ command: process.execPath, args: [fixture, '--name', name, '--max-lifetime', '600000'] });
    fs.writeFileSync(config, JSON.stringify({ 'mcpSwitchboard.servers': { wiki: server('wiki'), tickets: server('tickets') } }));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp.allowResource(`${base}/mcp`);
    await startServe(
      cleanup,
      [
        '--folder',
        ws.dir,
        '--config',
        config,
        '--port',
        String(port),
        '--oauth-issuer',
        idp.issuer,
        '--oauth-resource',
        `${base}/mcp`,
        '--oauth-scope',
        'mcp',
      ],
      { XDG_CACHE_HOME: tempCacheHome(cleanup) },
      60_000,
    );
    workbench = await openWorkbench('basic', {
      userSettings: { 'mcpSwitchboard.sources': ['settings', base] },
    });
  });

  after(async () => {
    await workbench?.close();
    await cleanup.run();
  });

  it('shows the gateway as one row that needs a sign-in, and after Sign In its servers as rows, running through it', async () => {
    const { page } = workbench;
    await activityBarEntry(page, 'MCP Switchboard').click();
    const gatewayRow = treeRow(page, new URL(base).host.replace(':', '-'));
    await gatewayRow.locator('.label-description', { hasText: /^needs sign-in$/ }).waitFor({ timeout: 60_000 });
    await screenshot(page, 'team-needs-sign-in');

    const opened = page.context().waitForEvent('page', { timeout: 60_000 });
    await gatewayRow.hover();
    await gatewayRow.locator('.action-label[aria-label="Sign In"]').click();
    const confirm = page.locator('.monaco-dialog-box', { hasText: 'open the external website' });
    await Promise.race([confirm.locator('.monaco-button', { hasText: /^Open$/ }).click({ timeout: 30_000 }), opened]).catch(
      () => undefined,
    );
    const provider: Page = await opened;
    await provider.locator('input[name="login"]').waitFor({ timeout: 30_000 });
    assert.ok(provider.url().startsWith(idp.issuer), `the team's provider, got ${provider.url()}`);
    await provider.locator('input[name="login"]').fill('alice');
    await provider.locator('input[name="password"]').fill('correct horse');
    await provider.locator('button[type="submit"]').click();
    await provider.locator('button', { hasText: 'Continue' }).click({ timeout: 30_000 });
    await page.bringToFront();

    // Listed after the sign-in: each of the gateway's servers is a row, and the gateway's own goes.
    for (const name of ['wiki', 'tickets']) {
      await treeRow(page, name)
        .locator('.label-description', { hasText: /^running · \d+ tools$/ })
        .waitFor({ timeout: 60_000 });
    }
    await gatewayRow.waitFor({ state: 'detached', timeout: 30_000 });
    const hover = await rowTooltip(page, treeRow(page, 'wiki'), 'Transport');
    const text = await hover.innerText();
    assert.match(text, new RegExp(`the team gateway \\(${base.replace(/[.]/g, '\\.')}\\)`));
    assert.ok(text.includes(`${base}/mcp/wiki`), text);
    await page.mouse.move(700, 600);
    await screenshot(page, 'team-servers');
  });
});
