/** The slice of a pino logger ingestion needs: object first, constant lowercase message. */
export interface WarnLogger {
  warn(obj: object, msg: string): void;
  /** Per-reading detail (accepted readings with a device trace); off unless the level is debug. */
  debug?(obj: object, msg: string): void;
}
