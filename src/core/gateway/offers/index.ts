// Everything but tools that the gateway serves: resources, prompts, skills, completion and
// logging; what an endpoint lists of them, and the notifications of their changes.
export { registerOfferHandlers, type SubscriptionLedger } from './offerHandlers';
export { endpointCapabilities, endpointInstructions, offerFingerprint, servedOffers, type OfferFingerprint } from './offerIndex';
export { OfferNotifier, SessionLedger, unsubscribeSession, type NotifiedSession } from './offerNotifier';
