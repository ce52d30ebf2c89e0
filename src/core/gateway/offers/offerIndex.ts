// What an endpoint lists of resources, templates, prompts and skills, and which server a request names.
// A per-server endpoint passes its server's offer through. The aggregated endpoint merges them:
// prompts are namespaced `server__prompt` (the naming rules of tools), and resource URIs route to
// their server. When two servers list the same URI (or URI template), the first one in
// configuration order owns it there; the other keeps it on its own endpoint.
import { ProtocolErrorCode, UriTemplate, type Prompt, type Resource, type ResourceTemplateType } from '@modelcontextprotocol/server';
import { sanitizeNamePart, type OfferCapabilities, type OfferedServer, type OfferSource } from '../../catalog';
import type { Skill } from '../../connection';
import { rpcError } from '../exposure';
import type { EndpointId } from '../http';
import { fingerprint } from '../../base/fingerprint';

/** Every capability the gateway can pass on: what an endpoint says when it cannot know yet. */
export const ALL_OFFER_CAPABILITIES: OfferCapabilities = {
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
  skills: {},
};

/** The JSON-RPC code for an unknown resource (MCP specification, resources). */
export const RESOURCE_NOT_FOUND = -32002;
const MAX_URI_IN_MESSAGE = 200;

export interface Routed {
  readonly server: string;
  /** The name or URI the upstream server knows. */
  readonly upstream: string;
}

/** The offers an endpoint serves: its server's, or every server's on the aggregated endpoint. */
export function servedOffers(offers: OfferSource, endpoint: EndpointId): OfferedServer[] {
  if (endpoint.kind === 'server') {
    const offer = offers.offer(endpoint.server);
    return offer ? [offer] : [];
  }
  return offers.offers();
}

/** The union of what the endpoint's servers can do; everything while one of them is unknown. */
export function endpointCapabilities(served: readonly OfferedServer[]): OfferCapabilities {
  if (served.some((offer) => offer.capabilities === undefined)) return ALL_OFFER_CAPABILITIES;
  const merged: Record<string, Record<string, unknown>> = {};
  for (const offer of served) {
    for (const [key, value] of Object.entries(offer.capabilities ?? {}))
      merged[key] = { ...(merged[key] ?? {}), ...(value as Record<string, unknown>) };
  }
  return merged as OfferCapabilities;
}

/** The most instructions the aggregated endpoint composes (each server's are already bounded). */
export const MAX_COMPOSED_INSTRUCTIONS = 128 * 1024;

/**
 * What the endpoint's servers say to a model: one server's instructions as they are; on the
 * aggregated endpoint each server's under its name (its tools are `<server>__<tool>` there), in
 * configuration order, cut at MAX_COMPOSED_INSTRUCTIONS.
 */
export function endpointInstructions(served: readonly OfferedServer[], endpoint: EndpointId): string | undefined {
  const saying = served.filter((offer) => offer.instructions);
  if (saying.length === 0) return undefined;
  if (endpoint.kind === 'server') return saying[0]?.instructions;
  const composed = saying
    .map((offer) => `## ${offer.name} (tools named ${sanitizeNamePart(offer.name)}__…)\n\n${offer.instructions}`)
    .join('\n\n');
  return composed.length > MAX_COMPOSED_INSTRUCTIONS ? `${composed.slice(0, MAX_COMPOSED_INSTRUCTIONS)}\n[…cut at 128 KiB]` : composed;
}

export function qualifiedPromptName(server: string, prompt: string): string {
  return `${sanitizeNamePart(server)}__${sanitizeNamePart(prompt)}`;
}

/** Each item once, by `key`: the first server in configuration order owns a repeated one. */
function firstOfEach<T>(lists: readonly (readonly T[])[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  const listed: T[] = [];
  for (const item of lists.flat()) {
    if (seen.has(key(item))) continue;
    seen.add(key(item));
    // Shared, not copied: a connection's offer is frozen all the way down.
    listed.push(item);
  }
  return listed;
}

export function listedResources(offers: OfferSource, endpoint: EndpointId): Resource[] {
  return firstOfEach(
    servedOffers(offers, endpoint).map((offer) => offer.resources as Resource[]),
    (resource) => resource.uri,
  );
}

export function listedTemplates(offers: OfferSource, endpoint: EndpointId): ResourceTemplateType[] {
  return firstOfEach(
    servedOffers(offers, endpoint).map((offer) => offer.resourceTemplates as ResourceTemplateType[]),
    (template) => template.uriTemplate,
  );
}

/** The skills an endpoint serves: each URI once, the first server in configuration order owning a repeated one. */
export function listedSkills(offers: OfferSource, endpoint: EndpointId): Skill[] {
  return firstOfEach(
    servedOffers(offers, endpoint).map((offer) => offer.skills),
    (skill) => skill.uri,
  );
}

/** A skill's folder: its SKILL.md URI without `/SKILL.md`. */
function skillRoot(skill: Skill): string {
  return skill.uri.slice(0, -'/SKILL.md'.length);
}

/** Whether `uri` is a file the skill lists, or lies in its folder (a directory, or a file of a "dynamic" skill). */
function inSkill(skill: Skill, uri: string): boolean {
  if (Array.isArray(skill.resources) && (skill.resources as readonly { uri: string }[]).some((file) => file.uri === uri)) return true;
  const root = skillRoot(skill);
  return uri === root || uri.startsWith(`${root}/`);
}

/**
 * The server of a skill's URI, or of a file or directory in a skill, on the aggregated endpoint:
 * the first (in configuration order) that lists such a skill. On a per-server endpoint, always that
 * server (it may serve skills it does not list). Unknown: -32602, as the extension says.
 */
export function routeSkill(offers: OfferSource, endpoint: EndpointId, uri: string): Routed {
  if (endpoint.kind === 'server') return { server: endpoint.server, upstream: uri };
  const owner = offers.offers().find((offer) => offer.skills.some((skill) => skill.uri === uri || inSkill(skill, uri)));
  if (owner) return { server: owner.name, upstream: uri };
  throw rpcError(ProtocolErrorCode.InvalidParams, `No skill is served at ${uri.slice(0, MAX_URI_IN_MESSAGE)}`);
}

export function listedPrompts(offers: OfferSource, endpoint: EndpointId): Prompt[] {
  if (endpoint.kind === 'server') return firstOfEach([(offers.offer(endpoint.server)?.prompts ?? []) as Prompt[]], (prompt) => prompt.name);
  const named = offers
    .offers()
    .map((offer) => offer.prompts.map((prompt) => ({ ...(prompt as Prompt), name: qualifiedPromptName(offer.name, prompt.name) })));
  return firstOfEach(named, (prompt) => prompt.name);
}

/** The server of a prompt name used on this endpoint. */
export function routePrompt(offers: OfferSource, endpoint: EndpointId, name: string): Routed {
  if (endpoint.kind === 'server') return { server: endpoint.server, upstream: name };
  for (const offer of offers.offers()) {
    const prompt = offer.prompts.find((candidate) => qualifiedPromptName(offer.name, candidate.name) === name);
    if (prompt) return { server: offer.name, upstream: prompt.name };
  }
  throw rpcError(
    ProtocolErrorCode.InvalidParams,
    `Unknown prompt "${name.slice(0, 200)}": no server offers a prompt with this qualified name`,
  );
}

function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false; // A template the SDK cannot parse matches nothing.
  }
}

/**
 * The server of a resource URI: the first (in configuration order) that lists it, else the first
 * with a template that matches it. On a per-server endpoint, always that server.
 */
export function routeResource(offers: OfferSource, endpoint: EndpointId, uri: string): Routed {
  if (endpoint.kind === 'server') return { server: endpoint.server, upstream: uri };
  const served = offers.offers();
  const listing = served.find((offer) => offer.resources.some((resource) => resource.uri === uri));
  // A skill's files are resources that resources/list need not name.
  const skill = listing ?? served.find((offer) => offer.skills.some((candidate) => inSkill(candidate, uri)));
  const owner = skill ?? served.find((offer) => offer.resourceTemplates.some((template) => matchesTemplate(template.uriTemplate, uri)));
  if (owner) return { server: owner.name, upstream: uri };
  throw rpcError(RESOURCE_NOT_FOUND, `Resource not found: no server offers "${uri.slice(0, MAX_URI_IN_MESSAGE)}"`, {
    uri: uri.slice(0, MAX_URI_IN_MESSAGE),
  });
}

/** The server a URI template (a completion reference) belongs to. */
export function routeTemplate(offers: OfferSource, endpoint: EndpointId, uriTemplate: string): Routed {
  if (endpoint.kind === 'server') return { server: endpoint.server, upstream: uriTemplate };
  const owner = offers.offers().find((offer) => offer.resourceTemplates.some((template) => template.uriTemplate === uriTemplate));
  if (owner) return { server: owner.name, upstream: uriTemplate };
  throw rpcError(ProtocolErrorCode.InvalidParams, `Unknown resource template "${uriTemplate.slice(0, MAX_URI_IN_MESSAGE)}"`);
}

/** Equal offers give equal fingerprints, per list kind. */
export interface OfferFingerprint {
  readonly resources: string;
  readonly prompts: string;
}

export function offerFingerprint(offers: OfferSource, endpoint: EndpointId): OfferFingerprint {
  const hash = (value: unknown) => fingerprint(value, 64);
  return {
    resources: hash([listedResources(offers, endpoint), listedTemplates(offers, endpoint), listedSkills(offers, endpoint)]),
    prompts: hash(listedPrompts(offers, endpoint)),
  };
}
