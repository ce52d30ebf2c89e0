#!/usr/bin/env node
// Renders media/icon.svg to the 128×128 media/icon.png the marketplace needs, with the same
// Chromium the UI tests use. Run it after editing the SVG; the PNG is committed.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './harness-paths.mjs';
import { launchBrowser } from '../test/harness/editor.mjs';

const svg = fs.readFileSync(path.join(repoRoot, 'media', 'icon.svg'), 'utf8');
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 128, height: 128 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: path.join(repoRoot, 'media', 'icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
