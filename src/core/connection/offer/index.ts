// What a server offers and how it is kept current: tools (screened, paged, their arguments checked),
// resources, prompts, skills and their change notifications, resource subscriptions, and what the
// server logs.
export { FORWARDED_RESULTS, type ForwardedMethod, type ForwardedResult, type OfferList, type ServerOffer } from './serverOffer';
export { type QuarantinedTool } from './toolList';
export { checkToolArguments } from './toolArguments';
export { paramHeaders, type ParamHeader } from './paramHeaders';
export { type ServerNotice } from './serverNotices';
export { ChangeSubscription } from './changeSubscription';
export { OfferKeeper, type ListedOffer, type OfferChangeEvent, type ToolsChangeEvent } from './offerKeeper';
