// The extension-host entry point: `run()` is what both code-server (through the workbench payload)
// and @vscode/test-electron call. SWITCHBOARD_SUITE picks the folder of suites to load.
import fs from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

// The harness forwards every console line of the workbench; tagging the reporter's lines lets it
// show only the test output.
const untaggedLog = Mocha.reporters.Base.consoleLog;
Mocha.reporters.Base.consoleLog = (...args: unknown[]) => untaggedLog(`[mocha] ${format(...args)}`);

export function run(): Promise<void> {
  const suite = process.env.SWITCHBOARD_SUITE ?? 'suite';
  const reporterPath = path.resolve(__dirname, '../../../test/support/stats-reporter.cjs');
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: 60_000,
    forbidOnly: true,
    forbidPending: true,
    reporter: reporterPath,
    reporterOptions: { statsFile: process.env.MOCHA_STATS_FILE },
  });
  const suiteDir = path.join(__dirname, suite);
  for (const file of fs.readdirSync(suiteDir, { recursive: true }).map(String).sort()) {
    if (file.endsWith('.test.js')) mocha.addFile(path.join(suiteDir, file));
  }
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} editor tests failed`)) : resolve()));
  });
}
