// The one JSON Schema validator of the client, the gateway's server and Run Tool's argument box.
// The SDK's choice for Node is ajv, 150 KB of the editor's bundle; its other validator,
// @cfworker/json-schema, checks the same dialects (2020-12 by default, 2019-09, draft-07/06) at a
// seventh of the size, and the editor's package has a size limit. Every client and server is given
// this one, so the default ajv is never used and the bundles leave it out (scripts/bundleTrim.mjs).
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator as SchemaValidatorProvider } from '@modelcontextprotocol/client';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';

const cfWorker = new CfWorkerJsonSchemaValidator();

/**
 * @cfworker/json-schema writes into the schema it compiles (a `__absolute_uri__` on each object),
 * and the catalog's tool definitions are frozen, shared by every reader: it is given a copy.
 */
export const jsonSchemaValidator: SchemaValidatorProvider = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return cfWorker.getValidator<T>(structuredClone(schema));
  },
};
