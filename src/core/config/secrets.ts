// Which values count as secrets. They are listed on the definition so loggers and the UI can redact
// them wherever they end up (an argument, a URL, a header).

/** Env var, env key and header names whose values are treated as secrets. */
const SECRET_NAME = /token|key|secret|password|auth/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}
