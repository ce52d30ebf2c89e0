import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const coreDir = path.resolve(__dirname, '../../src/core');

// Matches static imports, re-exports, require() and dynamic import() of the editor API.
const VSCODE_REFERENCE = /(?:from\s+|require\s*\(\s*|import\s*\(\s*|import\s+)['"]vscode['"]/;

export function findVscodeImports(dir: string): string[] {
  const offenders: string[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (VSCODE_REFERENCE.test(fs.readFileSync(file, 'utf8'))) offenders.push(path.relative(coreDir, file));
  }
  return offenders;
}

describe('architecture', () => {
  it('src/core never imports vscode', () => {
    assert.deepEqual(findVscodeImports(coreDir), []);
  });

  it('the import check recognises every form of a vscode import', () => {
    for (const form of [
      "import * as vscode from 'vscode';",
      'import { window } from "vscode";',
      "import 'vscode';",
      "const vscode = require('vscode');",
      "const vscode = await import('vscode');",
      "export { window } from 'vscode';",
    ]) {
      assert.ok(VSCODE_REFERENCE.test(form), form);
    }
    assert.ok(!VSCODE_REFERENCE.test("import { x } from './vscode-names';"));
  });
});
