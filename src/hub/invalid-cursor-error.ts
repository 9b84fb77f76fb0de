/** A page cursor the server did not issue; the HTTP layer answers 400. */
export class InvalidCursorError extends Error {
  readonly code = 'HUB_ERR_DEVICES_BAD_CURSOR';

  constructor(message = 'cursor is not one this server issued') {
    super(message);
    this.name = 'InvalidCursorError';
  }
}
