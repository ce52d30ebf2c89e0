// serve for a team (GatewayReach): listening beyond loopback, the names clients reach it by, the
// proxies whose forwarded headers are believed, and browser origins. Still strict by default: the
// loopback-only rules are in security.test.ts.
import assert from 'node:assert/strict';
import os from 'node:os';
import { McpGateway, validateReach, type GatewayReach } from '../../../src/core/gateway';
import { Cleanup, initializeHeaders, INITIALIZE_BODY, rawRequest, startGateway, toolsServer, type Setup } from './helpers';

const REACH: GatewayReach = { host: '127.0.0.1', allowedHosts: [], trustedProxies: [], allowedOrigins: [] };

/** A non-loopback IPv4 address of this machine, if it has one. */
function externalIPv4(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((info) => info !== undefined && !info.internal && info.family === 'IPv4')?.address;
}

describe('gateway: reach (serve for a team)', function () {
  const cleanup = new Cleanup();
  let setup: Setup;

  before(async () => {
    setup = await startGateway(cleanup, [toolsServer('alpha')]);
  });
  after(() => cleanup.run());

  async function gatewayWith(
    reach: Partial<GatewayReach>,
  ): Promise<{ gateway: McpGateway; status: (headers: Record<string, string>, address?: string) => Promise<number> }> {
    const gateway = new McpGateway({ source: setup.source, logger: setup.logger, reach: { ...REACH, ...reach } });
    cleanup.add(() => gateway.dispose());
    await gateway.start();
    const auth = { Authorization: `Bearer ${gateway.token}` };
    const status = async (headers: Record<string, string>, address?: string) =>
      (
        await rawRequest(gateway.port, {
          path: '/mcp/alpha',
          headers: initializeHeaders({ ...auth, ...headers }),
          body: INITIALIZE_BODY,
          ...(address ? { address } : {}),
        })
      ).status;
    return { gateway, status };
  }

  it('accepts the listed host names, with their ports and subdomains, and nothing else', async () => {
    const { gateway, status } = await gatewayWith({ allowedHosts: ['mcp.example.test', '*.svc.test', 'fixed.test:8443'] });
    const port = gateway.port;
    for (const host of [
      'mcp.example.test',
      'MCP.Example.Test:443',
      `mcp.example.test:${port}`,
      'a.svc.test',
      'a.b.svc.test:80',
      'fixed.test:8443',
      `127.0.0.1:${port}`,
    ]) {
      assert.equal(await status({ Host: host }), 200, `Host: ${host}`);
    }
    for (const host of [
      'svc.test',
      'evilsvc.test',
      'fixed.test',
      'fixed.test:9',
      'mcp.example.test.evil.test',
      'evil.test',
      `10.0.0.1:${port}`,
      'mcp.example.test:99999',
    ]) {
      assert.equal(await status({ Host: host }), 403, `Host: ${host}`);
    }
  });

  it('believes X-Forwarded-Host and X-Forwarded-For from a trusted proxy only', async () => {
    const trusting = await gatewayWith({ allowedHosts: ['mcp.example.test'], trustedProxies: ['127.0.0.0/8'] });
    assert.equal(await trusting.status({ Host: 'internal:1234', 'X-Forwarded-Host': 'mcp.example.test' }), 200);
    // The proxy's own value is the last one; what the client put before it does not count.
    assert.equal(await trusting.status({ Host: 'internal:1234', 'X-Forwarded-Host': 'mcp.example.test, evil.test' }), 403);
    assert.equal(
      await trusting.status({ Host: 'mcp.example.test', 'X-Forwarded-Host': 'evil.test', 'X-Forwarded-For': '198.51.100.1, 203.0.113.9' }),
      403,
    );
    assert.match(setup.logger.text(), /rejected POST \/mcp\/alpha from 203\.0\.113\.9 with 403/, 'the client the proxy saw');

    const elsewhere = await gatewayWith({ allowedHosts: ['mcp.example.test'], trustedProxies: ['10.0.0.0/8', '::1'] });
    assert.equal(
      await elsewhere.status({ Host: 'internal:1234', 'X-Forwarded-Host': 'mcp.example.test' }),
      403,
      'not from a trusted proxy',
    );
    assert.equal(await elsewhere.status({ Host: 'mcp.example.test', 'X-Forwarded-Host': 'evil.test' }), 200, 'ignored');
    assert.equal(await elsewhere.status({ Host: 'evil.test', 'X-Forwarded-For': '203.0.113.77' }), 403);
    assert.match(setup.logger.text(), /rejected POST \/mcp\/alpha from 127\.0\.0\.1 with 403/, 'the peer itself');
    assert.ok(!setup.logger.text().includes('203.0.113.77'), 'an untrusted peer names no client');
  });

  it('accepts a listed browser origin besides loopback ones', async () => {
    const { status } = await gatewayWith({ allowedHosts: ['mcp.example.test'], allowedOrigins: ['https://app.example.test'] });
    const host = { Host: 'mcp.example.test' };
    assert.equal(await status({ ...host, Origin: 'https://app.example.test' }), 200);
    assert.equal(await status({ ...host, Origin: 'http://localhost:3000' }), 200);
    for (const origin of ['https://app.example.test:444', 'http://app.example.test', 'https://evil.test', 'null']) {
      assert.equal(await status({ ...host, Origin: origin }), 403, `Origin: ${origin}`);
    }
  });

  it('listens on every address with 0.0.0.0, accepting IP-address hosts, still only with the token', async () => {
    const { gateway, status } = await gatewayWith({ host: '0.0.0.0' });
    assert.equal(gateway.address()?.address, '0.0.0.0');
    assert.equal(gateway.url, `http://127.0.0.1:${gateway.port}`);
    assert.ok(setup.logger.text().includes(`listening on 0.0.0.0:${gateway.port}, reachable from other machines`), setup.logger.text());
    assert.match(setup.logger.text(), /plain HTTP on 0\.0\.0\.0:\d+: put a proxy that terminates TLS in front/);
    const external = externalIPv4();
    const address = external ?? '127.0.0.1';
    assert.equal(await status({ Host: `${address}:${gateway.port}` }, address), 200);
    assert.equal(await status({ Host: `rebound.evil.test:${gateway.port}` }, address), 403, 'a name must still be listed');
    const noToken = await rawRequest(gateway.port, {
      path: '/mcp/alpha',
      headers: initializeHeaders({ Host: `${address}:${gateway.port}` }),
      body: INITIALIZE_BODY,
      address,
    });
    assert.equal(noToken.status, 401);
  });

  it('refuses a reach that names no IP address, a bad name, proxy or origin, or too many', () => {
    const cases: Array<[Partial<GatewayReach>, RegExp]> = [
      [{ host: 'localhost' }, /listens on an IP address, not "localhost"/],
      [{ host: '' }, /listens on an IP address/],
      [{ allowedHosts: ['bad host'] }, /Not a host name.*"bad host"/],
      [{ allowedHosts: ['a.test:70000'] }, /Not a host name/],
      [{ allowedHosts: ['*'] }, /Not a host name/],
      [{ allowedHosts: ['a..test'] }, /Not a host name/],
      [{ trustedProxies: ['10.0.0.0/33'] }, /Not an IP address or CIDR block: "10\.0\.0\.0\/33"/],
      [{ trustedProxies: ['proxy.internal'] }, /Not an IP address or CIDR/],
      [{ allowedOrigins: ['https://app.test/path'] }, /Not an origin/],
      [{ allowedOrigins: ['ftp://app.test'] }, /Not an origin/],
      [{ allowedHosts: Array.from({ length: 65 }, (_, i) => `h${i}.test`) }, /At most 64 allowed hosts/],
    ];
    for (const [reach, expected] of cases) {
      assert.throws(() => validateReach({ ...REACH, ...reach }), expected, JSON.stringify(reach).slice(0, 80));
      assert.throws(() => new McpGateway({ source: setup.source, reach: { ...REACH, ...reach } }), expected);
    }
    assert.deepEqual(
      validateReach({ ...REACH, host: '::', allowedHosts: ['MCP.Example.Test', '[::1]:80'], trustedProxies: ['fd00::/8', '10.1.2.3'] }),
      {
        host: '::',
        allowedHosts: ['mcp.example.test', '[::1]:80'],
        trustedProxies: ['fd00::/8', '10.1.2.3'],
        allowedOrigins: [],
      },
    );
  });
});
