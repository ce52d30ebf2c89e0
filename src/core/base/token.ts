/** What a gateway token may be: URL-safe, 32 to 512 characters (the generated ones are 43). */
export const GATEWAY_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,512}$/;
