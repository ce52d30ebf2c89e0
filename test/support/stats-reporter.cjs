// Mocha's spec reporter plus one machine-readable line at the end, so that scripts/test.mjs can
// count every suite (plain Node, extension host, UI) into the closing `N passed, N failed` line.
// The extension host has no stdout we can read, so the line also travels through the workbench's
// log hook; in plain Node it is written to MOCHA_STATS_FILE. The line names each failed test with
// the first line of its error: CI keeps only the end of a run's output, and a failure named only
// by a count cannot be chased.
const fs = require('node:fs');
const Mocha = require('mocha');

const MAX_NAMED = 20;
const MAX_TEXT = 300;

class StatsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failed = [];
    runner.on('fail', (test, error) => {
      if (failed.length >= MAX_NAMED) return;
      const title = typeof test.fullTitle === 'function' ? test.fullTitle() : String(test.title);
      const file = test.file
        ? ` [${String(test.file)
            .split(/[\\/]test[\\/]/)
            .pop()}]`
        : '';
      const first = String((error && error.message) || error).split('\n')[0];
      failed.push(`${title}${file}: ${first}`.slice(0, MAX_TEXT));
    });
    runner.once('end', () => {
      const { passes, failures, pending, tests } = runner.stats;
      const line = JSON.stringify({ passes, failures, pending, tests, failed });
      const file = (options && options.reporterOption && options.reporterOption.statsFile) || process.env.MOCHA_STATS_FILE;
      if (file) fs.writeFileSync(file, line);
      Mocha.reporters.Base.consoleLog(`MOCHA_STATS ${line}`);
    });
  }
}

module.exports = StatsReporter;
