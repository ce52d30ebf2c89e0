// Reads a server's envFile and reports its problems at `servers.<name>.envFile`.

import { parseDotenv } from './dotenv';
import type { ConfigFileSystem } from './fileSystem';
import { MAX_FILE_BYTES, MAX_MAP_ENTRIES, MAX_STRING_LENGTH } from './limits';
import type { ServerDiagnostics } from './serverDiagnostics';

export async function readEnvFile(
  file: string,
  fs: ConfigFileSystem,
  diagnostics: ServerDiagnostics,
): Promise<ReadonlyMap<string, string>> {
  const read = await fs.readText(file, MAX_FILE_BYTES);
  if (read.kind === 'missing') {
    diagnostics.error(['envFile'], `envFile not found: ${file}`);
    return new Map();
  }
  if (read.kind === 'error') {
    diagnostics.error(['envFile'], `envFile cannot be read: ${read.message}`);
    return new Map();
  }
  const { values, problems } = parseDotenv(read.text);
  for (const problem of problems) diagnostics.warning(['envFile'], `${file} line ${problem.line}: ${problem.message}`);
  if (values.size > MAX_MAP_ENTRIES) diagnostics.error(['envFile'], `${file} has more than ${MAX_MAP_ENTRIES} variables`);
  for (const [key, value] of values) {
    if (value.length > MAX_STRING_LENGTH) diagnostics.error(['envFile'], `${file}: ${key} is longer than ${MAX_STRING_LENGTH} characters`);
  }
  return values;
}
