import { HubError } from '../../host/errors.js';

/**
 * Opaque cursors of the customers' lists (payments, tickets): the last item's number within its own
 * list (`seq`, 1, 2, 3 … per customer), so a cursor tells nothing of other customers or tenants. The
 * list's letter is part of it: a tickets cursor is refused by the payments list.
 */
export function encodeCursor(list: 'p' | 't', seq: number): string {
  return Buffer.from(`${list}1:${seq}`).toString('base64url');
}

export function decodeCursor(list: 'p' | 't', cursor: string): number {
  const m = /^[pt]1:([1-9]\d{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || encodeCursor(list, Number(m[1])) !== cursor)
    throw new HubError('CUSTOMERS_BAD_CURSOR', 'The cursor is not one this list returned.');
  return Number(m[1]);
}
