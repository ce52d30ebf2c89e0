// The presentation module's surface: what the rest of Switchboard uses of it.
export { STATE_MESSAGE_MAX, describeState, toolsText, type StateContext } from './stateText';
export { describeRow, rowPrimaryAction } from './rowText';
export { pickRowIcon } from './serverIcon';
export { elicitFields, parseFieldText, urlDomain } from './elicitationFields';
export type { ElicitField } from './elicitationFields';
export {
  argumentFields,
  argumentSkeleton,
  argumentsChecker,
  describeArguments,
  parseNumberField,
  placeholderOf,
  shortValue,
} from './toolArgumentsForm';
export type { ArgumentField } from './toolArgumentsForm';
export { describeRefetch, failureActions, noticeReason, sandboxDeniedHost } from './notices';
export type { FailureAction } from './notices';
export { catalogReport } from './catalogReport';
