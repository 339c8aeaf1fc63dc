// The contract, as one table: every method a client may call on the engine, with what it
// takes (a schema, checked at every boundary: HTTP, IPC), what it gives back, its HTTP route
// and who may call it. The router, the HTTP client (browser, desktop app through a serve, CLI,
// MCP), the IPC handlers and the preload are all made from this table, and a test holds
// docs/api.md to it. Adding a method is: its route in routes.ts, its row here, the engine
// method, and its UI. Each row is its route (routes.ts: what a client needs, without zod) with
// the method's schema and result.

import { z } from 'zod';
import { CorralError, type ErrorShape } from './errors';
import type { Changes, FileDiff, Landed, PullRequestMade } from './changes';
import type { FolderList, PathPreview } from './files';
import { CORRAL_COMMAND, CORRAL_COMMAND_RULE, HOST_NAME, HOST_NAME_RULE, HOST_TARGET, HOST_TARGET_RULE, splitTarget, type HostView } from './hosts';
import { PATH_MAX, PROMPT_MAX, ROUTES, SCREEN_LINES_MAX, type RouteRow } from './routes';
import type { UsageReport } from './usage';
import type { CatalogueProblem, CliView, Receipt, SessionEvent, SessionView, StartResult } from './session';

// What the route half of the table holds, read from the table as before.
export { inQuery, pathParams, PATH_MAX, PROMPT_MAX, SCREEN_LINES_MAX, STREAMS, streamPath, type QueryCodec, type Scope } from './routes';

/** A result type carried by the table, for the type checker only. */
export interface Returns<T> {
  readonly result?: T;
}
const returns = <T>(): Returns<T> => ({});

const wholeNumber = (field: string, min: number, max: number) => {
  const message = `${field} must be a whole number from ${min} to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
};

/** A path as a terminal printed it: what a preview or a save is asked about. */
const printedPath = () => {
  const message = `path must be a path of 1 to ${PATH_MAX} characters`;
  return z.string({ error: message }).max(PATH_MAX, { error: message }).refine((p) => p.trim() !== '', { error: message });
};

const id = () => z.string();
const session = () => z.strictObject({ id: id() });
/** The input of a method that takes no fields: its requests are checked without a schema (below). */
const nothing = () => z.strictObject({});

/** A row as written below: its schema made by a function, called at the first use of the row's `input`. */
interface WrittenRow extends RouteRow {
  input: () => z.ZodObject;
  result: Returns<unknown>;
}
type Made<Table extends Record<string, WrittenRow>> = { [M in keyof Table]: { readonly [K in keyof Table[M]]: K extends 'input' ? ReturnType<Table[M]['input']> : Table[M][K] } };

// Making zod's schemas for the whole table took 4–5 ms of every start of `corral serve`, and loaded
// zod, before any request needs one (bench/README.md); each is made when its method is first called
// or looked at.
function madeAtFirstUse<Table extends Record<string, WrittenRow>>(table: Table): Made<Table> {
  const rows = Object.entries(table).map(([method, { input, ...row }]) => {
    let schema: z.ZodObject | undefined;
    return [method, Object.defineProperty(row, 'input', { get: () => (schema ??= input()), enumerable: true })];
  });
  return Object.fromEntries(rows) as Made<Table>;
}

const WRITTEN = {
  listClis: {
    ...ROUTES.listClis,
    input: nothing,
    result: returns<{ clis: CliView[]; problems: CatalogueProblem[] }>(),
  },
  listSessions: {
    ...ROUTES.listSessions,
    input: nothing,
    result: returns<{ sessions: SessionView[] }>(),
  },
  createSession: {
    ...ROUTES.createSession,
    input: () => z.strictObject({
      cli: z.string(),
      cwd: z.string(),
      name: z.string().optional(),
      prompt: z.string().max(PROMPT_MAX).optional(),
      /** A worktree of its own, on a new branch (default `corral/<name>`) from `base` (default: the folder's HEAD). */
      worktree: z.strictObject({ branch: z.string().min(1).max(200).optional(), base: z.string().min(1).max(200).optional(), setup: z.enum(['run', 'skip']).optional() }).optional(),
    }),
    result: returns<SessionView>(),
  },
  reorderSessions: {
    ...ROUTES.reorderSessions,
    input: () => z.strictObject({ ids: z.array(z.string()).max(10_000) }),
    result: returns<{ sessions: SessionView[] }>(),
  },
  checkFolder: {
    ...ROUTES.checkFolder,
    input: () => z.strictObject({ path: z.string() }),
    result: returns<{ ok: true; path: string } | { ok: false; error: ErrorShape }>(),
  },
  listFolders: {
    ...ROUTES.listFolders,
    input: () => z.strictObject({ path: z.string().max(PATH_MAX) }),
    result: returns<FolderList>(),
  },
  getSession: {
    ...ROUTES.getSession,
    input: session,
    result: returns<SessionView>(),
  },
  renameSession: {
    ...ROUTES.renameSession,
    input: () => z.strictObject({ id: id(), name: z.string() }),
    result: returns<SessionView>(),
  },
  removeSession: {
    ...ROUTES.removeSession,
    input: () => z.strictObject({ id: id(), force: z.boolean().optional(), worktree: z.enum(['keep', 'remove']).optional(), deleteBranch: z.boolean().optional() }),
    result: returns<void>(),
  },
  startSession: {
    ...ROUTES.startSession,
    input: session,
    result: returns<StartResult>(),
  },
  stopSession: {
    ...ROUTES.stopSession,
    input: session,
    result: returns<SessionView>(),
  },
  forgetKey: {
    ...ROUTES.forgetKey,
    input: session,
    result: returns<SessionView>(),
  },
  write: {
    ...ROUTES.write,
    input: () => z.strictObject({ id: id(), text: z.string().max(1_000_000), submit: z.boolean().optional(), ifAsking: z.number().finite().optional() }),
    result: returns<void>(),
  },
  flagAttention: {
    ...ROUTES.flagAttention,
    input: () => z.strictObject({ id: id(), message: z.string().max(500).optional() }),
    result: returns<SessionView>(),
  },
  archiveSession: {
    ...ROUTES.archiveSession,
    input: session,
    result: returns<SessionView>(),
  },
  restoreSession: {
    ...ROUTES.restoreSession,
    input: session,
    result: returns<SessionView>(),
  },
  previewPath: {
    ...ROUTES.previewPath,
    input: () => z.strictObject({ id: id(), path: printedPath() }),
    result: returns<PathPreview>(),
  },
  savePath: {
    ...ROUTES.savePath,
    input: () => z.strictObject({ id: id(), path: printedPath(), text: z.string().max(1_000_000), version: z.string().min(1).max(100) }),
    result: returns<{ path: string; bytes: number; version: string }>(),
  },
  sessionChanges: {
    ...ROUTES.sessionChanges,
    input: session,
    result: returns<Changes>(),
  },
  sessionDiff: {
    ...ROUTES.sessionDiff,
    input: () => z.strictObject({ id: id(), path: z.string().min(1).max(PATH_MAX) }),
    result: returns<FileDiff>(),
  },
  commentOnChanges: {
    ...ROUTES.commentOnChanges,
    input: () => z.strictObject({
      id: id(),
      comments: z
        .array(
          z
            .strictObject({ path: z.string().min(1).max(PATH_MAX), startLine: wholeNumber('startLine', 1, 10_000_000), endLine: wholeNumber('endLine', 1, 10_000_000), text: z.string().min(1).max(10_000) })
            .refine((c) => c.endLine >= c.startLine, { message: 'endLine must not be before startLine', path: ['endLine'] }),
        )
        .min(1)
        .max(100),
    }),
    result: returns<void>(),
  },
  mergeSession: {
    ...ROUTES.mergeSession,
    input: () => z.strictObject({ id: id(), message: z.string().min(1).max(10_000).optional() }),
    result: returns<Landed>(),
  },
  openPullRequest: {
    ...ROUTES.openPullRequest,
    input: () => z.strictObject({ id: id(), title: z.string().min(1).max(300).optional(), body: z.string().max(60_000).optional(), message: z.string().min(1).max(10_000).optional() }),
    result: returns<PullRequestMade>(),
  },
  usage: {
    ...ROUTES.usage,
    input: () => z.strictObject({ since: wholeNumber('since', 0, 8_640_000_000_000_000).optional() }),
    result: returns<UsageReport>(),
  },
  listHosts: {
    ...ROUTES.listHosts,
    input: nothing,
    result: returns<{ hosts: HostView[] }>(),
  },
  addHost: {
    ...ROUTES.addHost,
    input: () => z.strictObject({
      name: z.string({ error: HOST_NAME_RULE }).regex(HOST_NAME, { error: HOST_NAME_RULE }),
      target: z
        .string({ error: HOST_TARGET_RULE })
        .max(300, { error: HOST_TARGET_RULE })
        .regex(HOST_TARGET, { error: HOST_TARGET_RULE })
        .refine((t) => (splitTarget(t).port ?? 1) <= 65535 && splitTarget(t).port !== 0, { error: 'the port must be 1 to 65535' }),
      corral: z.string().max(PATH_MAX).regex(CORRAL_COMMAND, { error: CORRAL_COMMAND_RULE }).optional(),
    }),
    result: returns<HostView>(),
  },
  removeHost: {
    ...ROUTES.removeHost,
    input: () => z.strictObject({ name: z.string() }),
    result: returns<void>(),
  },
  screen: {
    ...ROUTES.screen,
    input: () => z.strictObject({ id: id(), lines: wholeNumber('lines', 1, SCREEN_LINES_MAX).optional() }),
    result: returns<{ text: string }>(),
  },
  events: {
    ...ROUTES.events,
    input: session,
    result: returns<{ events: SessionEvent[] }>(),
  },
  receipt: {
    ...ROUTES.receipt,
    input: session,
    result: returns<{ receipt: Receipt | null }>(),
  },
} satisfies { [M in keyof typeof ROUTES]: WrittenRow };
export const METHODS = madeAtFirstUse(WRITTEN);

export type Method = keyof typeof METHODS;
/** What a caller passes (optional fields may be left out). */
export type Request<M extends Method> = z.input<(typeof METHODS)[M]['input']>;
export type Response<M extends Method> = (typeof METHODS)[M]['result'] extends Returns<infer T> ? T : never;
export type HttpEndpoint = (typeof METHODS)[Method]['http'];

/** The engine's methods, as every transport offers them. A method that takes nothing may be called without an argument. */
export type Contract = {
  [M in Method]: Record<never, never> extends Request<M> ? (req?: Request<M>) => Promise<Response<M>> : (req: Request<M>) => Promise<Response<M>>;
};

export const METHOD_NAMES = Object.keys(METHODS) as Method[];

/**
 * Checks a request against its method's schema: the value the engine gets, or a CorralError
 * that names the first field that is wrong.
 */
export function parseRequest<M extends Method>(method: M, value: unknown): Request<M> {
  // The first requests to a daemon are mostly lists, which take nothing: no schema is made for
  // them, nor zod loaded (only to say what is wrong with a request that brings something).
  if (takesNothing(method) && isEmpty(value ?? {})) return {} as Request<M>;
  return parseWith(METHODS[method].input as z.ZodType, value ?? {}) as Request<M>;
}

/** Whether a method's input has no fields (its schema not made to know it). */
export function takesNothing(method: Method): boolean {
  return WRITTEN[method].input === nothing;
}

const isEmpty = (value: unknown) => typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && Object.keys(value).length === 0;

/** A value checked against a schema, or a CorralError naming the first field that is wrong. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    throw new CorralError('bad_request', `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`, issue.keys[0]);
  }
  const field = issue.path.join('.') || undefined;
  // Our own messages already name their field.
  const own = field !== undefined && issue.message.startsWith(`${field} `);
  throw new CorralError('bad_request', own ? issue.message : field ? `${field}: ${issue.message}` : `the request: ${issue.message}`, field);
}

