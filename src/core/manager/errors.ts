export type ManagerErrorCode = 'UNKNOWN_SERVER';

export class ManagerError extends Error {
  override readonly name = 'ManagerError';

  constructor(
    readonly code: ManagerErrorCode,
    message: string,
  ) {
    super(message);
  }
}
