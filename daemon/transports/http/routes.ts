// The HTTP API: each route and how its request is checked. Who may call it is in access.ts,
// keyed by the same "METHOD /path". Bodies are validated here, once, at the boundary; a
// rejected request never reaches the engine.

import { z } from 'zod';
import type { Engine } from '../../engine/engine';
import { CorralError } from '../../contract/errors';
import type { TokenInfo } from '../../auth/tokens';
import type { HttpEndpoint } from '../../auth/access';
import { LINK_CODE_TTL_MS, type LinkCodes } from '../../auth/linkCodes';

export interface RouteContext {
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
  /** "METHOD /path", the key of its rule in access.ts. */
  endpoint: HttpEndpoint;
  method: string;
  path: string;
  handle(engine: Engine, ctx: RouteContext): Promise<RouteResult>;
}

type Handler = Route['handle'];

function route(endpoint: HttpEndpoint, handle: Handler): Route {
  const [method, path] = endpoint.split(' ') as [string, string];
  return { endpoint, method, path, handle };
}

const createBody = z.strictObject({ cli: z.string(), cwd: z.string(), name: z.string().optional() });
const renameBody = z.strictObject({ name: z.string() });
const inputBody = z.strictObject({ text: z.string().max(1_000_000), submit: z.boolean().optional() });
const noBody = z.union([z.undefined(), z.strictObject({})]);
const orderBody = z.strictObject({ ids: z.array(z.string()).max(10_000) });
const saveBody = z.strictObject({ path: z.string().min(1).max(4096), text: z.string().max(1_000_000), version: z.string().min(1).max(100) });
const attentionBody = z.union([z.undefined(), z.strictObject({ message: z.string().max(500).optional() })]);
const exchangeBody = z.strictObject({ code: z.string().min(1).max(200) });

/** Parses a body against a schema; the error names the first field that is wrong. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    throw new CorralError('bad_request', `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`, issue.keys[0]);
  }
  const field = issue.path.join('.') || undefined;
  const what = field ? `${field}: ${issue.message}` : `the body: ${issue.message}`;
  throw new CorralError('bad_request', what, field);
}

function lines(query: URLSearchParams): number | undefined {
  const raw = query.get('lines');
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw)) throw new CorralError('bad_request', `lines must be a whole number from 1 to 10000, not ${JSON.stringify(raw)}`, 'lines');
  return Number(raw);
}

const ok = (body: unknown, status = 200): RouteResult => ({ status, body });

type SessionAction = HttpEndpoint extends infer E ? (E extends `POST /api/sessions/:id/${infer A}` ? A : never) : never;

/** `POST /api/sessions/{id}/<action>` with no body: one of the engine's actions on a session. */
function sessionAction(action: SessionAction, run: (engine: Engine, id: string) => Promise<unknown>): Route {
  return route(`POST /api/sessions/:id/${action}`, async (engine, { params, body }) => {
    parseBody(noBody, body);
    return ok(await run(engine, params.id!));
  });
}

export const ROUTES: Route[] = [
  route('GET /healthz', async () => ok({ ok: true })),
  route('POST /api/auth/code', async (_engine, { body, token, links }) => {
    parseBody(noBody, body);
    const { code, expiresAt } = links.issue(token!.scope !== 'write');
    return ok({ code, expiresAt, expiresInS: LINK_CODE_TTL_MS / 1000 }, 201);
  }),
  route('POST /api/auth/exchange', async (engine, { body, links }) => {
    const opened = links.redeem(parseBody(exchangeBody, body).code);
    if (!opened) throw new CorralError('unauthorized', 'that link was used already or has expired (a link opens once, within 60 s): run `corral url` for a new one', 'code');
    // A credential for one browser tab: temporary, so it dies with this daemon.
    const { secret, info } = engine.tokens.create('a browser tab', { readOnly: opened.readOnly, ephemeral: true });
    return ok({ token: secret, readOnly: info.scope === 'read' });
  }),
  route('GET /api/clis', async (engine) => ok({ clis: await engine.listClis(), problems: engine.catalogue.problems })),
  route('GET /api/sessions', async (engine) => ok({ sessions: await engine.listSessions() })),
  route('POST /api/sessions', async (engine, { body }) => ok(await engine.createSession(parseBody(createBody, body)), 201)),
  route('POST /api/sessions/order', async (engine, { body }) => ok({ sessions: await engine.reorderSessions(parseBody(orderBody, body)) })),
  route('GET /api/folder', async (engine, { query }) => ok(await engine.checkFolder({ path: query.get('path') ?? '' }))),
  route('GET /api/sessions/:id', async (engine, { params }) => ok(await engine.getSession({ id: params.id! }))),
  route('PATCH /api/sessions/:id', async (engine, { params, body }) => ok(await engine.renameSession({ id: params.id!, ...parseBody(renameBody, body) }))),
  route('DELETE /api/sessions/:id', async (engine, { params, query }) => {
    const force = query.get('force');
    if (force !== null && force !== '1' && force !== '0') throw new CorralError('bad_request', 'force must be 1 or 0', 'force');
    await engine.removeSession({ id: params.id!, force: force === '1' });
    return ok({ ok: true });
  }),
  sessionAction('start', (engine, id) => engine.startSession({ id })),
  sessionAction('stop', (engine, id) => engine.stopSession({ id })),
  sessionAction('forget-key', (engine, id) => engine.forgetKey({ id })),
  route('POST /api/sessions/:id/input', async (engine, { params, body }) => {
    const input = parseBody(inputBody, body);
    await engine.write({ id: params.id!, data: input.text, submit: input.submit ?? false });
    return ok({ ok: true });
  }),
  route('POST /api/sessions/:id/attention', async (engine, { params, body }) =>
    ok(await engine.flagAttention({ id: params.id!, ...(parseBody(attentionBody, body) ?? {}) })),
  ),
  sessionAction('archive', (engine, id) => engine.archiveSession({ id })),
  sessionAction('restore', (engine, id) => engine.restoreSession({ id })),
  route('GET /api/sessions/:id/preview', async (engine, { params, query }) => ok(await engine.previewPath({ id: params.id!, path: query.get('path') ?? '' }))),
  route('POST /api/sessions/:id/save', async (engine, { params, body }) => ok(await engine.savePath({ id: params.id!, ...parseBody(saveBody, body) }))),
  route('GET /api/sessions/:id/screen', async (engine, { params, query }) => ok(await engine.screen({ id: params.id!, lines: lines(query) }))),
  route('GET /api/sessions/:id/events', async (engine, { params }) => ok({ events: await engine.events({ id: params.id! }) })),
  route('GET /api/sessions/:id/receipt', async (engine, { params }) => ok({ receipt: await engine.receipt({ id: params.id! }) })),
];

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
