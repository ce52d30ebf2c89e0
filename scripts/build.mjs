#!/usr/bin/env node
// Bundles the extension (and, with --tests, the editor test suite) with esbuild.
//   node scripts/build.mjs               development build with source maps
//   node scripts/build.mjs --production  minified, for the .vsix
//   node scripts/build.mjs --tests       also builds out/test/editor for the extension host
//   node scripts/build.mjs --watch
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { EXTENSION_TRIM_PLUGINS, SANDBOX_TRIM_PLUGINS, TRIM_PLUGINS } from './bundleTrim.mjs';
import { CLI_BUILD_OPTIONS } from './cliBuild.mjs';
import { repoRoot } from './harness-paths.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const withTests = process.argv.includes('--tests');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  sourcesContent: false,
  minify: production,
  logLevel: 'warning',
  absWorkingDir: repoRoot,
  // jsonc-parser's `main` is a UMD file that esbuild cannot follow; its ESM build bundles cleanly.
  mainFields: ['module', 'main'],
  plugins: TRIM_PLUGINS,
};

/** @type {esbuild.BuildOptions[]} */
const builds = [
  // The extension, which is also the CLI when run as a program (src/main.ts): the editor's package.
  { ...common, entryPoints: ['src/main.ts'], outfile: 'dist/main.js', external: ['vscode'], plugins: EXTENSION_TRIM_PLUGINS },
  // Its entry: loads dist/main.js with V8's code cache (src/boot.ts); a few kilobytes, nothing of the core but that.
  { ...common, entryPoints: ['src/boot.ts'], outfile: 'dist/extension.js' },
  // The CLI alone: the npm package `mcp-switchboard`, and `bin` of a checkout.
  { ...common, ...CLI_BUILD_OPTIONS, outfile: 'dist/cli.js' },
];

// The sandbox runtime (@anthropic-ai/sandbox-runtime) runs as a command of its own, one per
// sandboxed server: bundled to one ES module beside ours, with the seccomp helper it looks for next
// to itself (vendor/seccomp/<arch>/apply-seccomp: it keeps a sandboxed server from opening Unix
// sockets such as the Docker or SSH agent socket) and its licence. The Windows and Java helpers are
// left out: we do not sandbox on Windows, and the Java agent only matters to JVM servers behind a
// proxy (they still get their proxy settings from the environment).
const sandboxPackage = path.join(repoRoot, 'node_modules', '@anthropic-ai', 'sandbox-runtime');
const sandboxOut = path.join(repoRoot, 'dist', 'sandbox');
builds.push({
  ...common,
  entryPoints: [path.join(sandboxPackage, 'dist', 'cli.js')],
  outfile: path.join(sandboxOut, 'srt.mjs'),
  format: 'esm',
  sourcemap: false,
  minify: true,
  plugins: SANDBOX_TRIM_PLUGINS,
  // Its CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __srtRequire } from 'node:module'; const require = __srtRequire(import.meta.url);" },
});

function copySandboxFiles() {
  for (const arch of ['x64', 'arm64']) {
    const target = path.join(sandboxOut, 'vendor', 'seccomp', arch);
    fs.mkdirSync(target, { recursive: true });
    fs.copyFileSync(path.join(sandboxPackage, 'vendor', 'seccomp', arch, 'apply-seccomp'), path.join(target, 'apply-seccomp'));
    fs.chmodSync(path.join(target, 'apply-seccomp'), 0o755);
  }
  fs.copyFileSync(path.join(sandboxPackage, 'LICENSE'), path.join(sandboxOut, 'LICENSE'));
}

if (withTests) {
  // Each editor suite becomes its own file so that the mocha index can load them by glob, exactly
  // as a test-electron runner would. mocha stays external: the extension host resolves it from
  // node_modules.
  const suiteDir = path.join(repoRoot, 'test', 'editor');
  const entryPoints = fs
    .readdirSync(suiteDir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join('test', 'editor', file));
  builds.push({
    ...common,
    entryPoints,
    outdir: 'out/test/editor',
    outbase: 'test/editor',
    external: ['vscode', 'mocha'],
  });
}

if (watch) {
  for (const options of builds) {
    const context = await esbuild.context(options);
    await context.watch();
  }
  console.log('[build] watching for changes');
} else {
  fs.rmSync(path.join(repoRoot, 'dist', 'extension.js.map'), { force: true });
  fs.rmSync(path.join(repoRoot, 'dist', 'main.js.map'), { force: true });
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
copySandboxFiles();
// The CLI is a command (its shebang gives Node its options); npm sets the bit on install, this does it for a checkout.
if (!watch) fs.chmodSync(path.join(repoRoot, 'dist', 'cli.js'), 0o755);
