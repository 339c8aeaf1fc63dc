// The HTTP API: each route, its scope, and how its request is checked. Bodies are validated
// here, once, at the boundary; a rejected request never reaches the engine.

import { z } from 'zod';
import type { Engine } from '../engine';
import { CorralError } from '../errors';

export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

export interface RouteResult {
  status: number;
  body?: unknown;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** read: any token; write: a token that may change things; hook: write, or the session's own. */
  scope: 'read' | 'write' | 'hook';
  handle(engine: Engine, ctx: RouteContext): Promise<RouteResult>;
}

const createBody = z.strictObject({ cli: z.string(), cwd: z.string(), name: z.string().optional() });
const renameBody = z.strictObject({ name: z.string() });
const inputBody = z.strictObject({ text: z.string().max(1_000_000), submit: z.boolean().optional() });
const noBody = z.union([z.undefined(), z.strictObject({})]);
const orderBody = z.strictObject({ ids: z.array(z.string()).max(10_000) });
const saveBody = z.strictObject({ path: z.string().min(1).max(4096), text: z.string().max(1_000_000), version: z.string().min(1).max(100) });
const attentionBody = z.union([z.undefined(), z.strictObject({ message: z.string().max(500).optional() })]);

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

/** `POST /api/sessions/{id}/<action>` with no body: one of the engine's actions on a session. */
function sessionAction(action: string, run: (engine: Engine, id: string) => Promise<unknown>): Route {
  return {
    method: 'POST',
    path: `/api/sessions/:id/${action}`,
    scope: 'write',
    handle: async (engine, { params, body }) => {
      parseBody(noBody, body);
      return ok(await run(engine, params.id!));
    },
  };
}

export const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/api/clis',
    scope: 'read',
    handle: async (engine) => ok({ clis: await engine.listClis(), problems: engine.catalogue.problems }),
  },
  { method: 'GET', path: '/api/sessions', scope: 'read', handle: async (engine) => ok({ sessions: await engine.listSessions() }) },
  {
    method: 'POST',
    path: '/api/sessions',
    scope: 'write',
    handle: async (engine, { body }) => ok(await engine.createSession(parseBody(createBody, body)), 201),
  },
  {
    method: 'POST',
    path: '/api/sessions/order',
    scope: 'write',
    handle: async (engine, { body }) => ok({ sessions: await engine.reorderSessions(parseBody(orderBody, body)) }),
  },
  {
    method: 'GET',
    path: '/api/folder',
    scope: 'read',
    handle: async (engine, { query }) => ok(await engine.checkFolder({ path: query.get('path') ?? '' })),
  },
  { method: 'GET', path: '/api/sessions/:id', scope: 'read', handle: async (engine, { params }) => ok(await engine.getSession({ id: params.id! })) },
  {
    method: 'PATCH',
    path: '/api/sessions/:id',
    scope: 'write',
    handle: async (engine, { params, body }) => ok(await engine.renameSession({ id: params.id!, ...parseBody(renameBody, body) })),
  },
  {
    method: 'DELETE',
    path: '/api/sessions/:id',
    scope: 'write',
    handle: async (engine, { params, query }) => {
      const force = query.get('force');
      if (force !== null && force !== '1' && force !== '0') throw new CorralError('bad_request', 'force must be 1 or 0', 'force');
      await engine.removeSession({ id: params.id!, force: force === '1' });
      return ok({ ok: true });
    },
  },
  sessionAction('start', (engine, id) => engine.startSession({ id })),
  sessionAction('stop', (engine, id) => engine.stopSession({ id })),
  sessionAction('forget-key', (engine, id) => engine.forgetKey({ id })),
  {
    method: 'POST',
    path: '/api/sessions/:id/input',
    scope: 'write',
    handle: async (engine, { params, body }) => {
      const input = parseBody(inputBody, body);
      await engine.write({ id: params.id!, data: input.text, submit: input.submit ?? false });
      return ok({ ok: true });
    },
  },
  {
    // An agent's own hook, with the token it was started with (CORRAL_SESSION_TOKEN).
    method: 'POST',
    path: '/api/sessions/:id/attention',
    scope: 'hook',
    handle: async (engine, { params, body }) => ok(await engine.flagAttention({ id: params.id!, ...(parseBody(attentionBody, body) ?? {}) })),
  },
  sessionAction('archive', (engine, id) => engine.archiveSession({ id })),
  sessionAction('restore', (engine, id) => engine.restoreSession({ id })),
  {
    // A file's text is as sensitive as the terminal that printed its name: write scope.
    method: 'GET',
    path: '/api/sessions/:id/preview',
    scope: 'write',
    handle: async (engine, { params, query }) => ok(await engine.previewPath({ id: params.id!, path: query.get('path') ?? '' })),
  },
  {
    method: 'POST',
    path: '/api/sessions/:id/save',
    scope: 'write',
    handle: async (engine, { params, body }) => ok(await engine.savePath({ id: params.id!, ...parseBody(saveBody, body) })),
  },
  {
    method: 'GET',
    path: '/api/sessions/:id/screen',
    scope: 'read',
    handle: async (engine, { params, query }) => ok(await engine.screen({ id: params.id!, lines: lines(query) })),
  },
  { method: 'GET', path: '/api/sessions/:id/events', scope: 'read', handle: async (engine, { params }) => ok({ events: await engine.events({ id: params.id! }) }) },
  {
    method: 'GET',
    path: '/api/sessions/:id/receipt',
    scope: 'read',
    handle: async (engine, { params }) => ok({ receipt: await engine.receipt({ id: params.id! }) }),
  },
];

export interface Match {
  route: Route;
  params: Record<string, string>;
}

/** The route for a method and path; `allowed` lists the methods of a path that exists. */
export function matchRoute(method: string, pathname: string): { match: Match | null; allowed: string[] } {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const params = matchPath(route.path, pathname);
    if (!params) continue;
    if (route.method === method) return { match: { route, params }, allowed };
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
