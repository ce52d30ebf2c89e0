// Which of a server's own icons (bounded to `data:image/` or https when the connection read them:
// state/serverState.ts identityOf) its row in the Servers view shows, for light and dark themes.

import type { ServerIcon } from '../state';

export interface RowIcon {
  /** Shown on light themes: an icon the server made for light backgrounds, else its plain one. */
  readonly light: string;
  readonly dark: string;
}

/** The size an icon declares that is nearest to a tree row's 16 px; `any` (SVG) is nearest of all. */
function distance(icon: ServerIcon): number {
  const sizes = icon.sizes ?? [];
  if (sizes.includes('any') || icon.mimeType === 'image/svg+xml' || icon.src.startsWith('data:image/svg+xml')) return 0;
  const pixels = sizes.map((size) => Number(/^(\d+)x\d+$/.exec(size)?.[1])).filter((value) => Number.isFinite(value));
  return pixels.length === 0 ? 1_000 : Math.min(...pixels.map((value) => Math.abs(value - 16) + (value < 16 ? 1_000 : 0)));
}

function best(icons: readonly ServerIcon[]): ServerIcon | undefined {
  return [...icons].sort((a, b) => distance(a) - distance(b))[0];
}

export function pickRowIcon(icons: readonly ServerIcon[] | undefined): RowIcon | undefined {
  if (!icons || icons.length === 0) return undefined;
  const plain = best(icons.filter((icon) => icon.theme === undefined));
  const light = best(icons.filter((icon) => icon.theme === 'light')) ?? plain ?? best(icons);
  const dark = best(icons.filter((icon) => icon.theme === 'dark')) ?? plain ?? best(icons);
  return light && dark ? { light: light.src, dark: dark.src } : undefined;
}
