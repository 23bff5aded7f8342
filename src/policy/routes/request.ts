/** The HTTP request the simulator decides on. */

export interface PolicyRequest {
  /** Upper-case method, e.g. `GET`. */
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** Query parameters, every value of each name in order, prototype-free. */
  readonly query: Readonly<Record<string, readonly string[]>>;
  /** Header values by lower-cased name, in order, prototype-free. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  /** The `:authority`/`Host`, lower-cased without its port; undefined when not sent. */
  readonly host?: string;
}

/**
 * Builds a request from loose parts: splits `?query` off the path, lower-cases header names,
 * strips the port from the host. Never throws.
 */
export function makeRequest(parts: {
  method?: string;
  path: string;
  host?: string;
  headers?: Readonly<Record<string, string>> | readonly (readonly [string, string])[];
}): PolicyRequest {
  const question = parts.path.indexOf('?');
  const path = question < 0 ? parts.path : parts.path.slice(0, question);
  const query: Record<string, string[]> = Object.create(null);
  if (question >= 0) {
    for (const pair of parts.path.slice(question + 1).split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
      const value = eq < 0 ? '' : safeDecode(pair.slice(eq + 1));
      (query[name] ??= []).push(value);
    }
  }
  const headers: Record<string, string[]> = Object.create(null);
  const entries = Array.isArray(parts.headers)
    ? parts.headers
    : Object.entries(parts.headers ?? {});
  for (const [name, value] of entries as [string, string][]) {
    (headers[name.toLowerCase()] ??= []).push(value);
  }
  let host = parts.host ?? headers['host']?.[0];
  if (host !== undefined) host = stripPort(host.toLowerCase());
  return {
    method: (parts.method ?? 'GET').toUpperCase(),
    path: path === '' ? '/' : path,
    query,
    headers,
    ...(host === undefined || host === '' ? {} : { host }),
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function stripPort(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(0, end + 1);
  }
  const colon = host.lastIndexOf(':');
  return colon >= 0 && host.indexOf(':') === colon && /^\d+$/.test(host.slice(colon + 1))
    ? host.slice(0, colon)
    : host;
}
