import { Errors } from '../host/errors.js';

/** A page cursor the server did not issue; the HTTP layer answers 400. */
export class InvalidCursorError extends Error {
  readonly code = Errors.DEVICES_BAD_CURSOR.code;

  constructor(message = 'cursor is not one this server issued') {
    super(message);
    this.name = 'InvalidCursorError';
  }
}
