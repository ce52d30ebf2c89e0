import assert from 'node:assert/strict';
import { pickRowIcon } from '../../../src/core/presentation/serverIcon';

describe("pickRowIcon (a running server's own icon on its row)", () => {
  it('none without icons', () => {
    assert.equal(pickRowIcon(undefined), undefined);
    assert.equal(pickRowIcon([]), undefined);
  });

  it('the size nearest a row (16 px, not smaller), an SVG before any bitmap', () => {
    const icons = [
      { src: 'https://x.example/64.png', sizes: ['64x64'] },
      { src: 'https://x.example/12.png', sizes: ['12x12'] },
      { src: 'https://x.example/24.png', sizes: ['24x24'] },
    ];
    assert.deepEqual(pickRowIcon(icons), { light: 'https://x.example/24.png', dark: 'https://x.example/24.png' });
    assert.deepEqual(pickRowIcon([...icons, { src: 'data:image/svg+xml;base64,PHN2Zy8+' }]), {
      light: 'data:image/svg+xml;base64,PHN2Zy8+',
      dark: 'data:image/svg+xml;base64,PHN2Zy8+',
    });
  });

  it('an icon made for each theme where the server has them, else its plain one', () => {
    const plain = { src: 'https://x.example/plain.png', sizes: ['16x16'] };
    const dark = { src: 'https://x.example/dark.png', sizes: ['16x16'], theme: 'dark' as const };
    assert.deepEqual(pickRowIcon([plain, dark]), { light: plain.src, dark: dark.src });
    assert.deepEqual(pickRowIcon([dark]), { light: dark.src, dark: dark.src });
  });
});
