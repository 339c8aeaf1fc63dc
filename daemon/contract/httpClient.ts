// The contract over HTTP, made from the table's routes (routes.ts: a client loads no zod):
// each method becomes its route's request (path parameters in the path, the other fields in the
// query or a JSON body), and the answer's body is its result. Whoever sends (a browser, the
// desktop app, the CLI) brings its own `send`, with its own errors for a failure.

import type { Contract, Method } from './methods';
import { inQuery, pathParams, ROUTE_NAMES, ROUTES } from './routes';

export interface HttpCall {
  verb: string;
  /** The path and query. */
  path: string;
  /** A JSON body, when the method has fields beyond its path. */
  body?: Record<string, unknown>;
}

/** The HTTP request that carries a method's request. */
export function httpCall(method: Method, req: Record<string, unknown> = {}): HttpCall {
  const row = ROUTES[method];
  const [verb, route] = row.http.split(' ') as [string, string];
  const params = new Set(pathParams(route));
  const path = route.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(req[name])));
  const rest = Object.entries(req).filter(([field, value]) => !params.has(field) && value !== undefined);
  if (inQuery(verb)) {
    const codecs: Record<string, { encode(value: unknown): string }> = 'query' in row ? row.query : {};
    const query = new URLSearchParams(rest.map(([field, value]) => [field, codecs[field] ? codecs[field].encode(value) : String(value)]));
    const search = query.toString();
    return { verb, path: search ? `${path}?${search}` : path };
  }
  return rest.length > 0 ? { verb, path, body: Object.fromEntries(rest) } : { verb, path };
}

/** Every method of the contract, each one HTTP request through `send`. */
export function httpClient(send: (call: HttpCall) => Promise<unknown>): Contract {
  return Object.fromEntries(ROUTE_NAMES.map((method) => [method, (req?: Record<string, unknown>) => send(httpCall(method, req))])) as unknown as Contract;
}
