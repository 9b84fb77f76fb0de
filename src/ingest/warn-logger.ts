/** The slice of a pino logger ingestion needs: object first, constant lowercase message. */
export interface WarnLogger {
  warn(obj: object, msg: string): void;
}
