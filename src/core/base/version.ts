// The product's version, read from package.json at build time (esbuild inlines the one field).
import { version } from '../../../package.json';

export const PRODUCT_VERSION: string = version;

/**
 * Orders two versions (`1.10.0` after `1.9.2`; a pre-release such as `1.0.0-rc.1` before its
 * release): negative when `a` is older. Parts that are not numbers compare as text.
 */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = a.split('-', 2);
  const [coreB = '', preB] = b.split('-', 2);
  const partsA = coreA.split('.');
  const partsB = coreB.split('.');
  for (let i = 0; i < Math.max(partsA.length, partsB.length); i++) {
    const [x = '0', y = '0'] = [partsA[i], partsB[i]];
    const order = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (order !== 0) return Math.sign(order);
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return Math.sign(preA.localeCompare(preB, 'en', { numeric: true }));
}
