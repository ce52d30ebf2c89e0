export { audiencesOf, createJwtVerifier, MAX_TOKEN_CHARS, type JwtVerifier, type JwtVerifierOptions } from './jwtVerifier';
export { AccessPolicy, FULL_GRANT, policySchema, type Grant, type PolicyFile } from './policy';
export { grantedCatalog, type DeniedCall, type GrantedCatalog } from './grantedCatalog';
export { authInfoOf, principalOf, type Principal } from './principal';
export {
  PerUserTokens,
  TokenExchange,
  TOKEN_EXCHANGE_GRANT,
  type TokenExchangeOptions,
  type UpstreamTokens,
  type UserPages,
} from './upstreamTokens';
export {
  SIGN_IN_CALLBACK_PATH,
  SIGN_IN_START_PATH,
  SIGN_IN_WHOAMI_PATH,
  UserSignIns,
  type TeamLogin,
  type UserSignInsOptions,
} from './userSignIns';
