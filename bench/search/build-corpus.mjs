#!/usr/bin/env node
// Builds bench/search/corpus.json: the tool definitions real MCP servers publish, as their own
// tools/list gives them. Each server is installed from npm (pinned below) into a folder of the temp dir,
// without install scripts, started over stdio with placeholder credentials (listing tools needs
// none; a server that insists, or that wants the network to start, is reported and skipped), and
// asked for its tools. The corpus is committed, so the benchmark itself needs neither npm nor the
// servers; run this again only to refresh it.
//   node bench/search/build-corpus.mjs [--only <package>]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
// Outside the repository: 46 servers' node_modules under it would make every `vsce package` walk them.
const cache = path.join(os.tmpdir(), 'mcp-switchboard-search-corpus');
const out = path.join(here, 'corpus.json');

/** package@version, and the arguments it needs to start (a folder, a placeholder URL). */
const SERVERS = [
  ['@modelcontextprotocol/server-everything@2026.8.31', ['stdio']],
  ['@modelcontextprotocol/server-filesystem@2026.8.31', ['/tmp']],
  ['@modelcontextprotocol/server-memory@2026.8.31', []],
  ['@modelcontextprotocol/server-sequential-thinking@2026.8.31', []],
  ['@modelcontextprotocol/server-github@2025.4.8', []],
  ['@modelcontextprotocol/server-puppeteer@2025.5.12', []],
  ['@modelcontextprotocol/server-slack@2025.4.25', []],
  ['@modelcontextprotocol/server-gitlab@2025.4.25', []],
  ['@modelcontextprotocol/server-google-maps@0.6.2', []],
  ['@modelcontextprotocol/server-postgres@0.6.2', ['postgresql://localhost:1/placeholder']],
  ['@modelcontextprotocol/server-brave-search@0.6.2', []],
  ['@notionhq/notion-mcp-server@2.5.2', []],
  ['@playwright/mcp@0.0.83', []],
  ['@stripe/mcp@0.3.3', ['--tools=all', '--api-key=sk_test_placeholder']],
  ['@supabase/mcp-server-supabase@0.13.0', ['--access-token=placeholder']],
  ['mcp-server-kubernetes@4.1.7', []],
  ['@sentry/mcp-server@0.39.0', ['--access-token=placeholder']],
  ['mongodb-mcp-server@3.0.4', []],
  ['@neondatabase/mcp-server-neon@0.6.5', ['start', 'placeholder']],
  ['firecrawl-mcp@3.26.0', []],
  ['exa-mcp-server@3.4.1', []],
  ['tavily-mcp@0.2.22', []],
  [
    '@twilio-alpha/mcp@0.7.0',
    ['AC0123456789abcdef0123456789abcdef/SK0123456789abcdef0123456789abcdef:placeholder', '--services', 'twilio_api_v2010'],
  ],
  ['@heroku/mcp-server@1.2.8', []],
  ['@hubspot/mcp-server@0.4.0', []],
  ['@upstash/context7-mcp@4.1.1', []],
  ['@cloudflare/mcp-server-cloudflare@0.2.0', ['run', 'placeholder']],
  ['@elastic/mcp-server-elasticsearch@0.3.1', []],
  ['@wonderwhy-er/desktop-commander@0.2.52', []],
  ['@executeautomation/playwright-mcp-server@1.0.12', []],
  ['figma-developer-mcp@0.13.2', ['--stdio', '--figma-api-key=placeholder']],
  ['@azure-devops/mcp@2.10.0', ['placeholder-org']],
  ['@translated/lara-mcp@1.0.6', []],
  ['@railway/mcp-server@0.1.12', []],
  ['@shopify/dev-mcp@1.16.0', []],
  ['@apify/actors-mcp-server@0.16.0', []],
  ['chrome-devtools-mcp@1.11.0', []],
  ['@circleci/mcp-server-circleci@0.20.0', []],
  ['@pinecone-database/mcp@0.3.0', []],
  ['@mapbox/mcp-server@0.14.0', []],
  ['@aashari/mcp-server-atlassian-jira@3.3.0', []],
  ['@zereight/mcp-gitlab@2.1.64', []],
  ['@cyanheads/git-mcp-server@2.15.3', []],
  ['@brightdata/mcp@2.11.3', []],
  ['@launchdarkly/mcp-server@0.6.2', ['start', '--api-key', 'placeholder']],
  ['@auth0/auth0-mcp-server@0.1.0-beta.19', ['run']],
  ['@roychri/mcp-server-asana@1.8.0', []],
  ['@tacticlaunch/mcp-linear@1.4.3', []],
  ['@paddle/paddle-mcp@0.1.6', ['--api-key=placeholder', '--environment=sandbox']],
  ['n8n-mcp@2.87.0', []],
  ['@dynatrace-oss/dynatrace-mcp-server@2.1.2', []],
  ['@agentdeskai/browser-tools-mcp@2.0.2', []],
  ['@browsermcp/mcp@0.1.3', []],
  ['@digitalocean/mcp@1.0.70', []],
  ['@gongrzhe/server-gmail-autoauth-mcp@1.1.11', []],
  ['@modelcontextprotocol/server-redis@2025.4.25', ['redis://localhost:1']],
  ['@vapi-ai/mcp-server@0.0.11', []],
  ['obsidian-mcp-server@3.2.12', []],
  ['@currents/mcp@2.1.1', []],
  ['@postman/postman-mcp-server@2.13.0', ['--full']],
  ['@bytebase/dbhub@1.4.0', ['--dsn', 'postgres://user:pass@localhost:1/db']],
  ['@gleanwork/mcp-server@0.7.1', []],
  ['nx-mcp@0.25.0', []],
  ['@upstash/mcp-server@0.3.0', ['run', 'placeholder@example.com', 'placeholder']],
  ['@sanity/mcp-server@0.12.2', []],
  ['@jpisnice/shadcn-ui-mcp-server@2.0.0', []],
  ['@magicuidesign/mcp@2.0.0', []],
  ['@microsoft/clarity-mcp-server@2.0.1', []],
];

const PLACEHOLDERS = Object.fromEntries(
  [
    'GITHUB_PERSONAL_ACCESS_TOKEN',
    'SLACK_BOT_TOKEN',
    'SLACK_TEAM_ID',
    'GITLAB_PERSONAL_ACCESS_TOKEN',
    'GOOGLE_MAPS_API_KEY',
    'BRAVE_API_KEY',
    'FIRECRAWL_API_KEY',
    'EXA_API_KEY',
    'TAVILY_API_KEY',
    'HEROKU_API_KEY',
    'PRIVATE_APP_ACCESS_TOKEN',
    'CLOUDFLARE_API_TOKEN',
    'ES_API_KEY',
    'FIGMA_API_KEY',
    'SENTRY_ACCESS_TOKEN',
    'NEON_API_KEY',
    'LARA_ACCESS_KEY_ID',
    'LARA_ACCESS_KEY_SECRET',
    'APIFY_TOKEN',
    'CIRCLECI_TOKEN',
    'PINECONE_API_KEY',
    'MAPBOX_ACCESS_TOKEN',
    'ATLASSIAN_SITE_NAME',
    'ATLASSIAN_USER_EMAIL',
    'ATLASSIAN_API_TOKEN',
    'RAILWAY_TOKEN',
    'NOTION_TOKEN',
    'HUBSPOT_ACCESS_TOKEN',
  ].map((name) => [name, 'placeholder']),
);

function install(spec) {
  const dir = path.join(cache, spec.replace(/[@/]/g, '_'));
  const name = spec.slice(0, spec.lastIndexOf('@'));
  const main = path.join(dir, 'node_modules', ...name.split('/'));
  if (!fs.existsSync(path.join(main, 'package.json'))) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}');
    const result = spawnSync('npm', ['install', spec, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 600_000,
      env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    });
    if (result.status !== 0) throw new Error(`npm install ${spec} failed: ${(result.stderr ?? '').slice(-400)}`);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(main, 'package.json'), 'utf8'));
  const bins = typeof manifest.bin === 'string' ? { [name]: manifest.bin } : (manifest.bin ?? {});
  const bin = Object.values(bins)[0];
  if (!bin) throw new Error(`${spec} has no bin`);
  return { name, version: manifest.version, entry: path.join(main, bin) };
}

async function toolsOf(entry, args) {
  const client = new Client({ name: 'corpus', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...args],
    env: { ...process.env, ...PLACEHOLDERS },
    stderr: 'ignore',
  });
  const timer = new Promise((_, reject) => setTimeout(() => reject(new Error('no tools within 45 s')), 45_000));
  try {
    await Promise.race([client.connect(transport), timer]);
    // Leniently: the SDK's own listTools refuses a whole list for one tool it finds malformed.
    const page = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.string().optional() });
    const tools = [];
    let cursor;
    do {
      const result = await Promise.race([client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, page), timer]);
      tools.push(...result.tools);
      cursor = result.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** What search can use of a tool: its name, title, description, and each argument's name and description. */
function slim(tool) {
  const properties = tool.inputSchema?.properties ?? {};
  return {
    name: tool.name,
    ...((tool.title ?? tool.annotations?.title) ? { title: tool.title ?? tool.annotations?.title } : {}),
    description: tool.description ?? '',
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [
          key,
          {
            ...(value?.type ? { type: value.type } : {}),
            ...(value?.description ? { description: String(value.description).slice(0, 500) } : {}),
          },
        ]),
      ),
      ...(Array.isArray(tool.inputSchema?.required) ? { required: tool.inputSchema.required } : {}),
    },
  };
}

// --only a,b: these packages (name prefixes) again, the rest of the corpus kept as it is.
const only = process.argv.indexOf('--only') > 0 ? process.argv[process.argv.indexOf('--only') + 1].split(',') : undefined;
const previous = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : { servers: [] };
const servers = [];
for (const [spec, args] of SERVERS) {
  if (only && !only.some((prefix) => spec.startsWith(prefix))) continue;
  try {
    const { name, version, entry } = install(spec);
    const tools = await toolsOf(entry, args);
    servers.push({ package: name, version, tools: tools.map(slim) });
    console.log(`${name}@${version}: ${tools.length} tools`);
  } catch (error) {
    console.log(`${spec}: skipped (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
}
const merged = only ? [...previous.servers.filter((server) => !servers.some((s) => s.package === server.package)), ...servers] : servers;
merged.sort((a, b) => a.package.localeCompare(b.package));
// Some servers put where they run into their descriptions (their working directory, the home
// folder): the corpus says where the files were, not on whose machine.
const machinePaths = [repoRoot, cache, os.homedir(), os.tmpdir()].sort((a, b) => b.length - a.length);
const text = machinePaths.reduce(
  (json, place) => json.split(place).join('/somewhere'),
  JSON.stringify(
    { comment: 'Tool definitions as real MCP servers list them; built by bench/search/build-corpus.mjs.', servers: merged },
    null,
    1,
  ),
);
fs.writeFileSync(out, `${text}\n`);
console.log(
  `${merged.reduce((sum, server) => sum + server.tools.length, 0)} tools from ${merged.length} servers -> ${path.relative(repoRoot, out)}`,
);
