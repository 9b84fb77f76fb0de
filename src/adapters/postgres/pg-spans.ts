import { SpanKind, type Attributes } from '@opentelemetry/api';
import { withHopSpan, type SpanStarter } from '../../host/hop-trace.js';

/**
 * A client span per statement sent to PostgreSQL inside a sampled trace (semantic conventions for
 * database calls: `{operation} {database}`, the parameterised text, never the values). Outside a
 * trace the statement runs as it is, with no span.
 */
export function pgStatementSpans(start: SpanStarter | undefined, connectionString: string) {
  if (start === undefined) return undefined;
  let namespace = 'postgres';
  let server: Attributes = { 'db.system.name': 'postgresql' };
  try {
    const url = new URL(connectionString);
    namespace = decodeURIComponent(url.pathname.slice(1)) || namespace;
    server = { ...server, 'server.address': url.hostname || 'localhost', 'server.port': Number(url.port || 5432) };
  } catch {
    // Not a URL (a socket directory): the spans go without the server's address.
  }
  server['db.namespace'] = namespace;
  return <T>(text: string, run: () => Promise<T>): Promise<T> => {
    const operation = /^\s*([a-zA-Z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    return withHopSpan(
      start,
      `${operation} ${namespace}`,
      { kind: SpanKind.CLIENT, attributes: { ...server, 'db.operation.name': operation, 'db.query.text': text } },
      run,
    );
  };
}
