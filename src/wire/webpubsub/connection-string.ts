/** A parsed Web PubSub connection string. */
export interface WebPubSubConnectionString {
  /** Base URL without trailing slash, with `Port` applied, e.g. `http://127.0.0.1:8080`. */
  readonly endpoint: string;
  readonly accessKey: string;
  readonly version: string | undefined;
}

/**
 * Parses `Endpoint=…;AccessKey=…;Version=1.0;Port=…` like the official SDK: keys are
 * case-insensitive, an endpoint without a scheme is https, `Port` overrides the endpoint's port.
 * Throws TypeError naming what is missing or malformed (a configuration error).
 */
export function parseConnectionString(value: string): WebPubSubConnectionString {
  const parts = new Map<string, string>();
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    parts.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  let endpoint = parts.get('endpoint');
  if (endpoint === undefined || endpoint === '') throw new TypeError('connection string missing Endpoint');
  const accessKey = parts.get('accesskey');
  if (accessKey === undefined || accessKey === '') throw new TypeError('connection string missing AccessKey');
  if (!/^https?:\/\//i.test(endpoint)) endpoint = `https://${endpoint}`;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TypeError('connection string has a malformed Endpoint');
  }
  const port = parts.get('port');
  if (port !== undefined && port !== '') {
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new TypeError('connection string has a malformed Port');
    url.port = port;
  }
  return { endpoint: url.origin, accessKey, version: parts.get('version') };
}
