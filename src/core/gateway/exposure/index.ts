// What an endpoint offers, decided from one catalog snapshot; what one request may see; GET
// /servers; and the words the gateway's client gets for an error (the core's one error, translated
// at this edge).
export {
  CALL_TOOL,
  FIND_TOOLS,
  hasEndpoint,
  listFingerprint,
  listedTools,
  offersSearchTools,
  servedServers,
  taskSupportOf,
} from './exposure';
export { endWithToken, fullAccess, tokenUntil, viewAccess, type SessionAccess } from './access';
export { SERVER_LISTING_PATH, answerListing, type ListedServer, type ServerListing } from './serverListing';
export { offerError, rpcError, toProtocolError, upstreamError } from './callErrors';
