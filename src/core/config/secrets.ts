// Which values count as secrets. They are listed on the definition so loggers and the UI can redact
// them wherever they end up (an argument, a URL, a header).

/** Env var, env key, header, query and flag names whose values are treated as secrets. */
const SECRET_NAME = /token|key|secret|passw(or)?d|auth|signature|credential/i;
/** A value too short to be a credential would redact ordinary words everywhere it appears. */
const MIN_SECRET_LENGTH = 4;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Values in a URL that are credentials: the user-info (`https://user:pass@host`) and the values of
 * query parameters whose names look secret (`?api_key=...`, `&sig=...`). Hosted MCP servers often
 * take their key in the query, and it must not reach an error message, a log or a tooltip.
 */
export function secretsInUrl(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const found: string[] = [];
  if (url.password) found.push(url.password, decodeSafely(url.password));
  if (url.username && url.password) found.push(url.username);
  else if (url.username) found.push(url.username, decodeSafely(url.username));
  for (const [name, value] of url.searchParams) {
    if (isSecretName(name)) found.push(value, encodeURIComponent(value));
  }
  return [...new Set(found)].filter((value) => value.length >= MIN_SECRET_LENGTH);
}

/**
 * Values of secret-looking flags on a command line: `--api-key=VALUE`, `--token VALUE`,
 * `-password=VALUE`, and credentials in URL arguments.
 */
export function secretsInArgs(args: readonly string[]): string[] {
  const found: string[] = [];
  args.forEach((arg, index) => {
    found.push(...secretsInUrl(arg));
    const flag = /^--?([A-Za-z][\w.-]*)(?:=(.*))?$/s.exec(arg);
    if (!flag || !isSecretName(flag[1] ?? '')) return;
    const value = flag[2] ?? args[index + 1];
    if (value !== undefined && !(flag[2] === undefined && value.startsWith('-'))) found.push(value);
  });
  return found.filter((value) => value.length >= MIN_SECRET_LENGTH);
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
