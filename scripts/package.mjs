#!/usr/bin/env node
// Builds what we ship, as the ecosystem ships it, into dist/packages/:
// - the editor's package per platform (`vsce package --target`), each with only its own sandbox
//   helper, and a universal one for the platforms that cannot sandbox (no runtime at all);
// - the CLI as an npm package, `mcp-switchboard`, with the seccomp helper of each Linux
//   architecture in an optional package of its own (`@mcp-switchboard/sandbox-linux-<arch>`, with
//   `os` and `cpu`, as esbuild ships its binaries), so that npm installs only the one that runs.
//
//   node scripts/package.mjs              all of them (a production build first)
//   node scripts/package.mjs --no-build   from the build already in dist/
//
// Prints each package's size; test/packages checks sizes and contents, and installs the CLI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './harness-paths.mjs';
import { CLI_EXTERNAL } from './cliBuild.mjs';
import { CLI_NPM_NAME, EDITOR_TARGETS, packagesDir, SECCOMP_ARCHES, seccompPackageName, targetPackage } from './packages.mjs';

const dist = path.join(repoRoot, 'dist');
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

function run(command, args, cwd = repoRoot) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
  return result.stdout;
}

if (!process.argv.includes('--no-build')) run('node', ['scripts/build.mjs', '--production']);
fs.rmSync(packagesDir, { recursive: true, force: true });
fs.mkdirSync(packagesDir, { recursive: true });

// The editor's packages: .vscodeignore lists what every one ships; each target adds its sandbox.
const commonIgnore = fs.readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8');
const sizes = [];
// The Marketplace page is for the editor's users: the README without what the repository's README
// keeps for developers and operators (the demo of a clone, the tests and benchmarks behind the
// claims, how the tests and layout work; running a team gateway). Each package stays under 1 MB.
const userReadme = path.join(packagesDir, 'README.md');
const LEFT_OUT = [
  {
    heading: '## Try the demo',
    instead: "See the repository's README: `npm ci && npm start` in a clone opens a demo workspace in code-server.",
  },
  { heading: '## Evidence', instead: "See the repository's README: the tests and benchmarks behind each line of the first table." },
  { heading: '## Development', instead: "See the repository's README: how the tests reach a real editor, the benchmarks, the layout." },
  {
    heading: '### Run it for a team',
    instead: "See the repository's README: running `mcp-switchboard serve` as a team gateway (identity, policy, replicas, Helm).",
  },
];
{
  let readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  for (const { heading, instead } of LEFT_OUT) {
    const start = readme.indexOf(`\n${heading}\n`);
    // The section runs to the next heading of its level or above.
    const levels = heading.startsWith('### ') ? ['\n## ', '\n### '] : ['\n## '];
    const ends = levels.map((mark) => readme.indexOf(mark, start + 1)).filter((at) => at > start);
    if (start < 0 || ends.length === 0)
      throw new Error(`README.md: no "${heading}" section followed by another to leave out of the package`);
    readme = `${readme.slice(0, start)}\n${heading}\n\n${instead}\n${readme.slice(Math.min(...ends))}`;
  }
  fs.writeFileSync(userReadme, readme);
}
for (const target of EDITOR_TARGETS) {
  const { file, sandbox, seccompArch } = targetPackage(target);
  const extra = [
    ...(sandbox ? ['!dist/sandbox/srt.mjs', '!dist/sandbox/LICENSE'] : []),
    ...(seccompArch ? [`!dist/sandbox/vendor/seccomp/${seccompArch}/apply-seccomp`] : []),
  ];
  const ignoreFile = path.join(packagesDir, `.vscodeignore-${target}`);
  fs.writeFileSync(ignoreFile, `${commonIgnore}\n${extra.join('\n')}\n`);
  const out = path.join(packagesDir, file);
  run('npx', [
    'vsce',
    'package',
    '--no-dependencies',
    // Relative: vsce takes it as a pattern of the files it collects.
    '--readme-path',
    path.relative(repoRoot, userReadme),
    '--ignoreFile',
    ignoreFile,
    ...(target === 'universal' ? [] : ['--target', target]),
    '--out',
    out,
  ]);
  fs.rmSync(ignoreFile);
  sizes.push([file, fs.statSync(out).size]);
}
fs.rmSync(userReadme);

// The CLI's npm packages, staged in dist/npm and packed next to the editor's.
const staging = path.join(dist, 'npm');
fs.rmSync(staging, { recursive: true, force: true });
const common = {
  version: manifest.version,
  license: manifest.license,
  repository: manifest.repository,
  homepage: manifest.homepage,
  bugs: manifest.bugs,
};

const cliDir = path.join(staging, 'cli');
fs.mkdirSync(path.join(cliDir, 'sandbox'), { recursive: true });
fs.copyFileSync(path.join(dist, 'cli.js'), path.join(cliDir, 'cli.js'));
fs.chmodSync(path.join(cliDir, 'cli.js'), 0o755);
fs.copyFileSync(path.join(dist, 'sandbox', 'srt.mjs'), path.join(cliDir, 'sandbox', 'srt.mjs'));
fs.copyFileSync(path.join(dist, 'sandbox', 'LICENSE'), path.join(cliDir, 'sandbox', 'LICENSE'));
fs.copyFileSync(path.join(repoRoot, 'LICENSE'), path.join(cliDir, 'LICENSE'));
fs.copyFileSync(path.join(repoRoot, 'docs', 'cli-package.md'), path.join(cliDir, 'README.md'));
writeJson(path.join(cliDir, 'package.json'), {
  name: CLI_NPM_NAME,
  ...common,
  description: 'MCP Switchboard from a terminal: doctor, serve (the MCP gateway, over HTTP or stdio), login, registry, share.',
  keywords: ['mcp', 'model context protocol', 'mcp gateway', 'mcp server'],
  bin: { [CLI_NPM_NAME]: 'cli.js' },
  engines: { node: '>=20' },
  files: ['cli.js', 'sandbox/srt.mjs', 'sandbox/LICENSE'],
  // What the bundle leaves out (scripts/cliBuild.mjs), at the versions the repository is tested with.
  dependencies: Object.fromEntries(CLI_EXTERNAL.map((name) => [name, manifest.dependencies[name]])),
  optionalDependencies: Object.fromEntries(SECCOMP_ARCHES.map((arch) => [seccompPackageName(arch), manifest.version])),
});

for (const arch of SECCOMP_ARCHES) {
  const dir = path.join(staging, `sandbox-linux-${arch}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(dist, 'sandbox', 'vendor', 'seccomp', arch, 'apply-seccomp'), path.join(dir, 'apply-seccomp'));
  fs.chmodSync(path.join(dir, 'apply-seccomp'), 0o755);
  fs.copyFileSync(path.join(dist, 'sandbox', 'LICENSE'), path.join(dir, 'LICENSE'));
  writeJson(path.join(dir, 'package.json'), {
    name: seccompPackageName(arch),
    ...common,
    license: 'Apache-2.0',
    description: `The seccomp helper of the sandbox runtime (@anthropic-ai/sandbox-runtime) for linux-${arch}, for ${CLI_NPM_NAME}.`,
    os: ['linux'],
    cpu: [arch],
    files: ['apply-seccomp', 'LICENSE'],
  });
}

for (const dir of fs.readdirSync(staging)) {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', packagesDir], path.join(staging, dir)));
  sizes.push([packed[0].filename, fs.statSync(path.join(packagesDir, packed[0].filename)).size]);
}

for (const [file, bytes] of sizes) console.log(`${(bytes / 1e6).toFixed(2).padStart(6)} MB  dist/packages/${file}`);

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
