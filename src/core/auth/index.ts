export { ServerCredentials, credentialKey } from './credentials';
export { SignInFailedError } from './errors';
export { OAuthRegistry } from './oauthRegistry';
export { FileSecretStore, MemorySecretStore, defaultCredentialsFile, userConfigFolder, type SecretStore } from './secretStore';
export { ServerSignIn } from './serverSignIn';
export { CallbackRouter, type SignInBrowser } from './signIn';
