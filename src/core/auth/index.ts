export { ServerCredentials, credentialKey } from './credentials';
export { SignInFailedError, SignInRequiredError } from './errors';
export type { SignInReason } from '../state/serverState';
export { SwitchboardOAuthProvider, REFRESH_MARGIN_MS, type InteractiveSignIn } from './oauthProvider';
export { OAuthRegistry, type OAuthRegistryOptions } from './oauthRegistry';
export { FileSecretStore, MemorySecretStore, defaultCredentialsFile, userConfigFolder, type SecretStore } from './secretStore';
export { ServerSignIn, type SignInHost, type SignInResult } from './serverSignIn';
export { CallbackRouter, SIGN_IN_TIMEOUT_MS, signIn, type SignInBrowser, type SignInOptions } from './signIn';
