// The question a terminal asks before a workspace's own server runs shows the command line as a
// person reads it: `${workspaceFolder}/../x` resolved and normalized, words quoted as a shell would.
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { ConsentFile, settleWorkspaceConsent } from '../../../src/core/consent';
import { stdioDefinition } from '../connection/helpers';

describe('consent: the terminal question', () => {
  it('shows the command line with its paths normalized and its words quoted', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-question-'));
    try {
      const folder = path.join(dir, 'demo');
      const asked: string[] = [];
      await settleWorkspaceConsent(
        [
          stdioDefinition([], {
            name: 'demo-tools',
            command: 'node',
            args: [`${folder}/../test/fixtures/stdio-server.mjs`, '--name', 'a b'],
            cwd: `${folder}/./sub/..`,
            source: { kind: 'folder', file: path.join(folder, '.vscode', 'settings.json') },
          }),
        ],
        {
          folders: [folder],
          store: new ConsentFile(path.join(dir, 'consent.json')),
          trustWorkspace: false,
          app: 'doctor',
          ask: async (question) => {
            asked.push(question);
            return false;
          },
        },
      );
      assert.equal(asked.length, 1);
      assert.match(asked[0] ?? '', new RegExp(`\\n  node ${path.join(dir, 'test', 'fixtures', 'stdio-server.mjs')} --name "a b"\\n`));
      assert.match(asked[0] ?? '', new RegExp(`\\n  in ${folder}\\n`));
      assert.ok(!(asked[0] ?? '').includes('/../'), asked[0]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
