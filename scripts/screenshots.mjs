// The README's screenshots are the UI tests' own: each image under media/screenshots/ is copied
// from test-artifacts/screenshots/ (written by `npm run test:ui`, at the workbench's default size
// and sidebar width). `npm run screenshots` after a UI run refreshes them all; it refuses to copy
// from a run that did not take every one, so the README never mixes old and new pictures.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TAKEN = path.join(repoRoot, 'test-artifacts', 'screenshots');
export const PUBLISHED = path.join(repoRoot, 'media', 'screenshots');

/** README image → the UI test screenshot it is. */
export const README_SCREENSHOTS = {
  'tree-and-tooltip': 'server-tooltip',
  'status-bar': 'status-bar',
  consent: 'consent-dialog',
  'consent-all': 'consent-all',
  'idle-server': 'idle-server',
  'needs-sign-in': 'needs-sign-in',
  'provider-login': 'provider-login',
  'signed-in': 'signed-in',
  'import-preview': 'import-preview',
  'tool-confirmation': 'tool-confirmation',
  'tool-catalog': 'tool-catalog',
  'server-resources': 'server-resources',
  'skill-review': 'skill-review',
  'skill-changed': 'skill-changed-review',
  'elicitation-form': 'elicitation-form',
  'sampling-consent': 'sampling-consent',
  'consent-sandboxed': 'consent-sandboxed',
  'sandboxed-tooltip': 'sandboxed-row',
  'restricted-mode': 'restricted-mode',
  'editor-list-servers': 'editor-list-servers',
  'editor-configure-tools': 'editor-configure-tools',
  'run-tool-validation': 'run-tool-validation',
  'allow-after-deny': 'allow-after-deny',
  'import-codex': 'import-codex',
  'registry-picker': 'registry-picker',
  'dev-watch-restarted': 'dev-watch-restarted',
  'task-running': 'task-running',
};

function main() {
  const missing = Object.values(README_SCREENSHOTS).filter((name) => !fs.existsSync(path.join(TAKEN, `${name}.png`)));
  if (missing.length > 0) {
    console.error(`Not taken by the last UI run (run \`npm run test:ui\` first): ${missing.join(', ')}`);
    process.exit(1);
  }
  fs.mkdirSync(PUBLISHED, { recursive: true });
  for (const [published, taken] of Object.entries(README_SCREENSHOTS)) {
    fs.copyFileSync(path.join(TAKEN, `${taken}.png`), path.join(PUBLISHED, `${published}.png`));
  }
  console.log(`Copied ${Object.keys(README_SCREENSHOTS).length} screenshots to media/screenshots/.`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
