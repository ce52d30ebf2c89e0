// The user's consent to run workspace-defined servers: what it is bound to, where it is kept (one
// file the editor and the CLI share), and how the CLI asks for it.
export { consentHash, isConsentAnswer, type ConsentAnswer } from './consentKey';
export { ConsentFile, defaultConsentFile, MAX_ANSWERS } from './consentFile';
export { settleWorkspaceConsent, type Confirm, type ConsentedServers, type WorkspaceConsentOptions } from './workspaceServers';
