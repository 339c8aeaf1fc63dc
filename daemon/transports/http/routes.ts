// The HTTP API: a route for each method of the contract's table, plus the server's own (health,
// links to the web UI). Who may call each is in auth/access.ts, keyed by the same "VERB /path".
// A request is turned into its method's input (path, query or body) and checked against the
// method's schema, once, here; a rejected request never reaches the engine.

import { z } from 'zod';
import { CorralError } from '../../contract/errors';
import { inQuery, METHODS, METHOD_NAMES, parseRequest, parseWith, pathParams, takesNothing, type Contract, type Method } from '../../contract/methods';
import type { HttpEndpoint } from '../../auth/access';
import { LINK_CODE_TTL_MS, type LinkCodes } from '../../auth/linkCodes';
import { TAB_IDLE_MS, type Tokens, type TokenInfo } from '../../auth/tokens';
import { once } from '../../util/once';

export interface RouteContext {
  /** The engine's contract. */
  api: Contract;
  tokens: Tokens;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** Who asked (null on a route that needs no token). */
  token: TokenInfo | null;
  links: LinkCodes;
}

export interface RouteResult {
  status: number;
  body?: unknown;
}

export interface Route {
  /** "VERB /path", the key of its rule in auth/access.ts. */
  endpoint: HttpEndpoint;
  method: string;
  path: string;
  handle(ctx: RouteContext): Promise<RouteResult>;
}

function route(endpoint: HttpEndpoint, handle: Route['handle']): Route {
  const [method, path] = endpoint.split(' ') as [string, string];
  return { endpoint, method, path, handle };
}

/** A method's route: its input gathered from the request, checked, and handed to the engine. */
function methodRoute(method: Method): Route {
  const row = METHODS[method];
  return route(row.http, async ({ api, params, query, body }) => {
    const input = inputOf(method, params, query, body);
    const call = api[method] as (this: Contract, req: unknown) => Promise<unknown>;
    const result = await call.call(api, parseRequest(method, input));
    return { status: 'status' in row ? row.status : 200, body: result === undefined ? { ok: true } : result };
  });
}

/** The fields of a method's input, from where its route carries them. */
export function inputOf(method: Method, params: Record<string, string>, query: URLSearchParams, body: unknown): Record<string, unknown> {
  const row = METHODS[method];
  const [verb, path] = row.http.split(' ') as [string, string];
  const inPath = pathParams(path);
  const input: Record<string, unknown> = {};
  if (inQuery(verb)) {
    if (body !== undefined) throw new CorralError('bad_request', `${verb} takes no body: its fields go in the query`);
    const codecs: Record<string, { decode(raw: string | null, field: string): unknown }> = 'query' in row ? row.query : {};
    // Only the method's own fields: anything else in the query is not ours to refuse.
    for (const field of takesNothing(method) ? [] : Object.keys(row.input.shape)) {
      if (inPath.includes(field)) continue;
      const value = codecs[field] ? codecs[field].decode(query.get(field), field) : (query.get(field) ?? undefined);
      if (value !== undefined) input[field] = value;
    }
  } else if (body !== undefined) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new CorralError('bad_request', 'the body must be a JSON object');
    for (const field of inPath) {
      if (field in body) throw new CorralError('bad_request', `unknown field: ${field} (it is in the path)`, field);
    }
    // Each field made the input's own, "__proto__" too (JSON.parse makes it an own key): an
    // assignment would make it the input's prototype, its fields read as given and none refused.
    for (const [field, value] of Object.entries(body)) Object.defineProperty(input, field, { value, enumerable: true, writable: true, configurable: true });
  }
  for (const field of inPath) input[field] = params[field];
  return input;
}

// Made at their first use, as the table's are (contract/methods.ts).
const noBody = once(() => z.union([z.undefined(), z.strictObject({})]));
const exchangeBody = once(() => z.strictObject({ code: z.string().min(1).max(200) }));

/** The server's own routes: not the engine's methods. */
const SERVER_ROUTES: Route[] = [
  route('GET /healthz', async () => ({ status: 200, body: { ok: true } })),
  route('POST /api/auth/code', async ({ body, token, links }) => {
    parseWith(noBody(), body);
    const { code, expiresAt } = links.issue(token!.scope !== 'write');
    return { status: 201, body: { code, expiresAt, expiresInS: LINK_CODE_TTL_MS / 1000 } };
  }),
  route('POST /api/auth/exchange', async ({ body, links, tokens }) => {
    const opened = links.redeem(parseWith(exchangeBody(), body).code);
    if (!opened) throw new CorralError('unauthorized', 'that link was used already or has expired (a link opens once, within 60 s): run `corral url` for a new one', 'code');
    // A credential for one browser tab: it ends once unused for a day (TAB_IDLE_MS), and is
    // listed and revocable as any token; a restart of the daemon does not end it.
    const { secret, info } = tokens.create('a browser tab', { readOnly: opened.readOnly, idleMs: TAB_IDLE_MS });
    return { status: 200, body: { token: secret, readOnly: info.scope === 'read' } };
  }),
];

export const ROUTES: Route[] = [...SERVER_ROUTES, ...METHOD_NAMES.map(methodRoute)];

export interface Match {
  route: Route;
  params: Record<string, string>;
}

/** The route for a method and path (HEAD as GET); `allowed` lists the methods of a path that exists. */
export function matchRoute(method: string, pathname: string): { match: Match | null; allowed: string[] } {
  const allowed: string[] = [];
  const wanted = method === 'HEAD' ? 'GET' : method;
  for (const route of ROUTES) {
    const params = matchPath(route.path, pathname);
    if (!params) continue;
    if (route.method === wanted) return { match: { route, params }, allowed };
    allowed.push(route.method);
  }
  return { match: null, allowed };
}

export function matchPath(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = pathname.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i]!.startsWith(':')) {
      if (!got[i]) return null;
      try {
        params[want[i]!.slice(1)] = decodeURIComponent(got[i]!);
      } catch {
        return null;
      }
    } else if (want[i] !== got[i]) return null;
  }
  return params;
}
