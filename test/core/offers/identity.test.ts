// Who a server says it is passes through its gateway endpoint: its version, website and icons
// (bounded), under its configured name; and what is out of bounds is dropped.
import assert from 'node:assert/strict';
import { MemoryToolCacheStorage } from '../../../src/core/catalog';
import { createRuntime } from '../../../src/core/runtime/runtime';
import { identityOf } from '../../../src/core/state/serverState';
import { Cleanup, MemoryLogger, stdioDefinition } from '../connection/helpers';
import { waitForRunning } from '../gateway/helpers';
import { connectInEra } from '../support/eraClient';

const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('server identity through the gateway', function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const era of ['legacy', 'modern'] as const) {
    it(`a ${era} client sees the upstream's version, website and icon, under the configured name`, async () => {
      const runtime = createRuntime({ logger: new MemoryLogger(), storage: new MemoryToolCacheStorage(), settings: {} });
      cleanup.add(() => runtime.dispose());
      await runtime.manager.start([
        stdioDefinition(['--name', 'upstream-name', '--website', 'https://example.com/docs', '--icon', PIXEL], { name: 'mine' }),
      ]);
      await waitForRunning(runtime.manager, ['mine']);
      const gateway = runtime.gateway();
      await gateway.start();
      const { client } = await connectInEra(cleanup, gateway, gateway.endpointUrl('mine'), era, {});
      const info = client.getServerVersion();
      assert.equal(info?.name, 'mine');
      assert.equal(info?.title, 'mine');
      assert.equal(info?.version, '1.2.3');
      assert.equal(info?.websiteUrl, 'https://example.com/docs');
      assert.deepEqual(info?.icons, [{ src: PIXEL, mimeType: 'image/png', sizes: ['16x16'] }]);
    });
  }

  it('keeps only what is within bounds', () => {
    const icons = [
      { src: 'javascript:alert(1)' },
      { src: 'http://plain.example/icon.png' },
      { src: `data:image/png;base64,${'A'.repeat(70_000)}` },
      ...Array.from({ length: 10 }, (_, index) => ({ src: `https://cdn.example/${index}.png`, theme: 'dark', sizes: ['48x48', 3] })),
    ];
    const kept = identityOf({ name: 'n', version: '1', title: 't'.repeat(300), websiteUrl: 'http://insecure.example', icons });
    assert.equal(kept.title, undefined);
    assert.equal(kept.websiteUrl, undefined);
    assert.equal(kept.icons?.length, 8);
    assert.ok(
      kept.icons?.every((icon) => icon.src.startsWith('https://cdn.example/') && icon.theme === 'dark' && icon.sizes?.length === 1),
    );
  });
});
