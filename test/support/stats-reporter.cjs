// Mocha's spec reporter plus one machine-readable line at the end, so that scripts/test.mjs can
// count every suite (plain Node, extension host, UI) into the closing `N passed, N failed` line.
// The extension host has no stdout we can read, so the line also travels through the workbench's
// log hook; in plain Node it is written to MOCHA_STATS_FILE.
const fs = require('node:fs');
const Mocha = require('mocha');

class StatsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const { passes, failures, pending, tests } = runner.stats;
      const line = JSON.stringify({ passes, failures, pending, tests });
      const file = (options && options.reporterOption && options.reporterOption.statsFile) || process.env.MOCHA_STATS_FILE;
      if (file) fs.writeFileSync(file, line);
      Mocha.reporters.Base.consoleLog(`MOCHA_STATS ${line}`);
    });
  }
}

module.exports = StatsReporter;
