// What an upstream server asks a gateway client while one of its requests is served: relayed on a
// 2025 session, as `input_required` rounds of a 2026-07-28 client's own request, or bridged
// between the two; and what a forwarded request carries from the client's.
export { sessionRelay, sessionRelayedRun, type RelayChannel, type RelayedRun } from './clientRelay';
export { GatewayRounds, clientKeyOf, clientNameOf, declaresTasks, sessionRound, signInRound, type OpenRound } from './clientRounds';
export { CallBridge } from './callBridge';
export { clientRequestOptions, progressTo } from './requestOptions';
