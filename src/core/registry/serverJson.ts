// The MCP Registry's documents (server.json, schema 2025-12-11, and the v0.1 list and detail
// responses), read loosely: unknown fields are kept out of the way, a document that lacks what an
// install needs is refused with the field named. Bounded like every input from outside.
import { z } from 'zod';

const MAX_TEXT = 4_096;
const MAX_ITEMS = 100;

const text = z.string().max(MAX_TEXT);
const list = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_ITEMS);

/** An input: a value, or what to ask the user for (`isRequired`, `isSecret`, `default`). */
export const inputSchema = z.looseObject({
  description: text.optional(),
  value: text.optional(),
  default: text.optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: text.optional(),
  choices: list(text).optional(),
  placeholder: text.optional(),
});

export const inputWithVariablesSchema = inputSchema.extend({
  variables: z.record(text, inputSchema).optional(),
});

/** An environment variable or a header. */
export const keyValueSchema = inputWithVariablesSchema.extend({ name: text });

export const argumentSchema = inputWithVariablesSchema.extend({
  type: z.enum(['positional', 'named']),
  name: text.optional(),
  valueHint: text.optional(),
  isRepeated: z.boolean().optional(),
});

const transportSchema = z.looseObject({
  type: z.enum(['stdio', 'streamable-http', 'sse']),
  url: text.optional(),
  headers: list(keyValueSchema).optional(),
});

export const packageSchema = z.looseObject({
  registryType: text,
  identifier: text,
  version: text.optional(),
  registryBaseUrl: text.optional(),
  runtimeHint: text.optional(),
  transport: transportSchema,
  runtimeArguments: list(argumentSchema).optional(),
  packageArguments: list(argumentSchema).optional(),
  environmentVariables: list(keyValueSchema).optional(),
});

export const remoteSchema = z.looseObject({
  type: z.enum(['streamable-http', 'sse']),
  url: text,
  headers: list(keyValueSchema).optional(),
  variables: z.record(text, inputSchema).optional(),
});

export const serverJsonSchema = z.looseObject({
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, { error: 'is not a registry name (namespace/name)' }),
  description: text,
  title: text.optional(),
  version: text,
  websiteUrl: text.optional(),
  repository: z.looseObject({ url: text.optional(), source: text.optional() }).optional(),
  packages: list(packageSchema).optional(),
  remotes: list(remoteSchema).optional(),
});

export type RegistryInput = z.infer<typeof inputWithVariablesSchema>;
export type KeyValueInput = z.infer<typeof keyValueSchema>;
export type PackageArgument = z.infer<typeof argumentSchema>;
export type RegistryPackage = z.infer<typeof packageSchema>;
export type RegistryRemote = z.infer<typeof remoteSchema>;
export type ServerJson = z.infer<typeof serverJsonSchema>;

/** One item of a list: the server, and the registry's own metadata about it. */
export const serverResponseSchema = z.looseObject({
  server: z.unknown(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

export const serverListSchema = z.looseObject({
  servers: z.array(serverResponseSchema).max(MAX_ITEMS),
  metadata: z.looseObject({ nextCursor: text.optional(), next_cursor: text.optional(), count: z.number().optional() }).optional(),
});

/** Where a zod issue is, for a message that names the field. */
export function describeProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'is not valid';
  const where = issue.path.map(String).join('.') || 'the document';
  return `${where}: ${issue.message}`;
}
