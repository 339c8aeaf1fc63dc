// The CLI catalogue: resources/clis.toml merged with the user's $CORRAL_HOME/clis.toml.
// A broken file or entry never takes the daemon down and is never dropped silently:
// each problem names the file and line (TOML syntax) or the CLI and field (schema).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import { once } from '../util/once';
import { tomlLine } from '../util/tomlLines';
import type { CatalogueProblem, CliView } from '../contract/session';
import { parseDuration } from './duration';
import { SQL_NAME, type SessionsDb } from './sessionsDb';

export interface CliSpec {
  name: string;
  label: string;
  /** As written in the catalogue. */
  command: string;
  args: string[];
  /** null: this CLI cannot resume; every start is clean. */
  resume: string[] | null;
  color: string;
  env: Record<string, string>;
  boxed: boolean;
  attention: RegExp[];
  /**
   * First-run, trust and sign-in screens: they need the person as attention's do, but are answered
   * in the terminal (their menus differ from the approval prompt's), so no one-key answers.
   */
  setup: RegExp[];
  /** What its screen shows once it takes a prompt (a first prompt waits for it); null: a still screen is enough. */
  ready: RegExp | null;
  /** The keys that answer the CLI's approval prompt yes or no, when each is one keystroke. */
  answers: Answers | null;
  /** Learns the CLI's own session id from its output (first capture group). */
  keyFromOutput: RegExp | null;
  /** Learns it from a file the CLI writes: a glob, and a pattern for the file's first 64 KiB. */
  keyFromFile: KeyFromFile | null;
  /**
   * The CLI's own words for a resume key it cannot resume (a regex; {cli_session_id} stands
   * for the key). Seen at the end of a resumed run's output, they mean the key is dead.
   */
  deadKey: string | null;
  /**
   * Where the CLI keeps a conversation: a glob with {cli_session_id}. When no file matches,
   * the key is dead before any launch.
   */
  conversation: string | null;
  /** Where a CLI that keeps its sessions in SQLite keeps them: learns keys, and checks them. */
  sessionsDb: SessionsDb | null;
  /** undefined: the catalogue's default; null: never reap. */
  idleTimeoutMs: number | null | undefined;
  resumeGraceMs: number | undefined;
  /** Absolute path of the executable, or null when the command is not installed. */
  path: string | null;
}

export interface Answers {
  approve: string;
  deny: string;
}

export interface KeyFromFile {
  /** As written: may start with ~/ and hold $VAR, ${VAR} or ${VAR:-default}. */
  glob: string;
  /** As written: its first group is the key; {cwd} stands for the session's folder. */
  pattern: string;
}

export interface CatalogueDefaults {
  idleTimeoutMs: number | null;
  resumeGraceMs: number;
  /** Where sessions' worktrees go (as written: may start with ~/); null: Corral's data folder. */
  worktrees: string | null;
}

export interface Catalogue {
  clis: Map<string, CliSpec>;
  defaults: CatalogueDefaults;
  problems: CatalogueProblem[];
}

export const BUILTIN_DEFAULTS: CatalogueDefaults = { idleTimeoutMs: 8 * 3_600_000, resumeGraceMs: 15_000, worktrees: null };

const ARG_PLACEHOLDERS = ['id', 'name', 'cwd'] as const;
const RESUME_PLACEHOLDERS = ['cli_session_id', 'id', 'name', 'cwd'] as const;
export type PlaceholderValues = Partial<Record<(typeof RESUME_PLACEHOLDERS)[number], string>>;

/** The token that stands for the user's login shell in `command`. */
export const LOGIN_SHELL = '$SHELL';

const withGroup = (source: string) => new RegExp(`${source}|`).exec('')!.length > 1;
const isRegex = (source: string, flags = '') => {
  try {
    new RegExp(source, flags);
    return true;
  } catch {
    return false;
  }
};
const COLOUR = /^#[0-9a-fA-F]{6}$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const isAbsoluteGlob = (glob: string) => /^(\/|~\/|\$)/.test(glob);
const isFolder = (p: string) => p.startsWith('/') || p.startsWith('~/');

// The schemas say what is wrong with an entry, in zod's words and ours. They are made, and zod
// loaded, only for an entry that plainEntry() below does not take (bench/README.md: a start).
export const catalogueSchemas = once(() => {
  const regex = z.string().superRefine((source, ctx) => {
    try {
      new RegExp(source, 'm');
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(err as Error).message}` });
    }
  });

  /** A pattern for a file's text; {cwd} stands for the session's folder and is checked as empty. */
  const filePattern = z.string().superRefine((source, ctx) => {
    let found: boolean;
    try {
      found = withGroup(source.replaceAll('{cwd}', ''));
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(err as Error).message}` });
      return;
    }
    if (!found) ctx.addIssue({ code: 'custom', message: 'needs a capture group for the id' });
  });

  const absoluteGlob = z
    .string()
    .refine(isAbsoluteGlob, 'must be an absolute path (it may start with ~/ or a $VARIABLE)');

  const keyFromFileSchema = z.strictObject({
    glob: absoluteGlob,
    pattern: filePattern,
  });

  /** A regex in which {cli_session_id} stands for the key (checked with the placeholder as a word). */
  const deadKeyPattern = z.string().superRefine((source, ctx) => {
    try {
      new RegExp(source.replaceAll('{cli_session_id}', 'key'), 'm');
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(err as Error).message}` });
    }
  });

  const sqlName = z.string().regex(SQL_NAME, 'must be a plain SQL name (letters, digits, "_")');
  const sessionsDbSchema = z.strictObject({ path: absoluteGlob, table: sqlName, id: sqlName, folder: sqlName, created: sqlName });

  const conversationGlob = absoluteGlob.refine((glob) => glob.includes('{cli_session_id}'), 'must name the conversation with {cli_session_id}');

  /** A key as the CLI reads it from its terminal: a character, Enter ("\r"), Esc ("\u001b") or a short sequence. */
  const answerKey = z.string().min(1, 'must not be empty').max(8, 'is one key (at most 8 characters)');
  const answersSchema = z.strictObject({ approve: answerKey, deny: answerKey });

  const duration = z.union([z.string(), z.number()]).superRefine((value, ctx) => {
    if (parseDuration(value) === undefined) {
      ctx.addIssue({ code: 'custom', message: `not a duration: ${JSON.stringify(value)} (use e.g. "5s", "8h", "off")` });
    }
  });

  const cli = z.strictObject({
    label: z.string().min(1).optional(),
    command: z.string().min(1, 'must not be empty'),
    args: z.array(z.string()).default([]),
    resume: z.array(z.string()).optional(),
    color: z.string().regex(COLOUR, 'must be a colour like "#d97757"').default('#8b8b8b'),
    env: z.record(z.string().regex(VARIABLE_NAME, 'is not a variable name'), z.string()).default({}),
    boxed: z.boolean().default(false),
    attention: z.array(regex).default([]),
    setup: z.array(regex).default([]),
    ready: regex.optional(),
    answers: answersSchema.optional(),
    // An invalid expression is told by `regex` (and would throw here).
    key_from_output: regex.refine((source) => !isRegex(source, 'm') || withGroup(source), 'needs a capture group for the id').optional(),
    key_from_file: keyFromFileSchema.optional(),
    dead_key: deadKeyPattern.optional(),
    conversation: conversationGlob.optional(),
    sessions_db: sessionsDbSchema.optional(),
    idle_timeout: duration.optional(),
    resume_grace: duration.optional(),
  });

  const defaults = z.strictObject({
    idle_timeout: duration.optional(),
    resume_grace: duration.optional(),
    worktrees: z
      .string()
      .refine(isFolder, 'must be an absolute folder or one under ~/')
      .optional(),
  });
  return { cli, defaults };
});

type RawTable = Record<string, unknown>;
type CliData = z.infer<ReturnType<typeof catalogueSchemas>['cli']>;
type DefaultsData = z.infer<ReturnType<typeof catalogueSchemas>['defaults']>;

const isString = (value: unknown): value is string => typeof value === 'string';
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);
/** A table holding exactly these fields, each one a string that `ok` takes. */
const isTableOf = (value: unknown, fields: Record<string, (text: string) => boolean>) =>
  isTable(value) && Object.keys(value).length === Object.keys(fields).length && Object.entries(fields).every(([field, ok]) => isString(value[field]) && ok(value[field]));
const isDuration = (value: unknown) => (isString(value) || typeof value === 'number') && parseDuration(value) !== undefined;
const isSqlName = (name: string) => SQL_NAME.test(name);
const isAnswerKey = (key: string) => key.length >= 1 && key.length <= 8;

/** What an entry's fields must be, each checked as the schema checks it; a field not here is the schema's to judge. */
const PLAIN_FIELDS: Record<string, (value: unknown) => boolean> = {
  label: (v) => isString(v) && v.length >= 1,
  command: (v) => isString(v) && v.length >= 1,
  args: isStrings,
  resume: isStrings,
  color: (v) => isString(v) && COLOUR.test(v),
  env: (v) => isTable(v) && Object.entries(v).every(([name, value]) => VARIABLE_NAME.test(name) && isString(value)),
  boxed: (v) => typeof v === 'boolean',
  attention: (v) => isStrings(v) && v.every((source) => isRegex(source, 'm')),
  setup: (v) => isStrings(v) && v.every((source) => isRegex(source, 'm')),
  ready: (v) => isString(v) && isRegex(v, 'm'),
  answers: (v) => isTableOf(v, { approve: isAnswerKey, deny: isAnswerKey }),
  key_from_output: (v) => isString(v) && isRegex(v, 'm') && withGroup(v),
  key_from_file: (v) => isTableOf(v, { glob: isAbsoluteGlob, pattern: (source) => isRegex(source.replaceAll('{cwd}', '')) && withGroup(source.replaceAll('{cwd}', '')) }),
  dead_key: (v) => isString(v) && isRegex(v.replaceAll('{cli_session_id}', 'key'), 'm'),
  conversation: (v) => isString(v) && isAbsoluteGlob(v) && v.includes('{cli_session_id}'),
  sessions_db: (v) => isTableOf(v, { path: isAbsoluteGlob, table: isSqlName, id: isSqlName, folder: isSqlName, created: isSqlName }),
  idle_timeout: isDuration,
  resume_grace: isDuration,
};

/**
 * An entry as the schema parses it, when every field is one the schema takes: checked without
 * zod, which loads only for an entry with something wrong (or a field not known here), to say
 * what. Otherwise null. A test holds the two to the same answers.
 */
export function plainEntry(raw: RawTable): CliData | null {
  if (!isString(raw.command)) return null;
  for (const [field, value] of Object.entries(raw)) {
    if (!Object.hasOwn(PLAIN_FIELDS, field) || !PLAIN_FIELDS[field]!(value)) return null;
  }
  // Every field was checked above, and those not given take the schema's defaults.
  return { args: [], color: '#8b8b8b', env: {}, boxed: false, attention: [], setup: [], ...raw } as unknown as CliData;
}

/** The [defaults] table, likewise. */
export function plainDefaults(raw: RawTable): DefaultsData | null {
  const fields: Record<string, (value: unknown) => boolean> = { idle_timeout: isDuration, resume_grace: isDuration, worktrees: (v) => isString(v) && isFolder(v) };
  return Object.entries(raw).every(([field, value]) => Object.hasOwn(fields, field) && fields[field]!(value)) ? (raw as DefaultsData) : null;
}

interface ParsedFile {
  file: string;
  text: string;
  defaults: RawTable;
  clis: Map<string, RawTable>;
}

export interface LoadOptions {
  shippedFile: string;
  /** The user's file; a missing file is fine. */
  userFile?: string;
  /** PATH used to resolve commands: the one children will get. */
  pathEnv: string | undefined;
}

export function loadCatalogue(options: LoadOptions): Catalogue {
  const problems: CatalogueProblem[] = [];
  const files = [readCatalogueFile(options.shippedFile, problems, true)];
  if (options.userFile) files.push(readCatalogueFile(options.userFile, problems, false));

  const defaults = { ...BUILTIN_DEFAULTS };
  for (const file of files) {
    if (!file) continue;
    let data = plainDefaults(file.defaults);
    if (!data) {
      const result = catalogueSchemas().defaults.safeParse(file.defaults);
      if (!result.success) {
        for (const issue of result.error.issues) {
          problems.push({ file: file.file, field: `defaults.${issue.path.join('.')}`, message: `${file.file}: field defaults.${issue.path.join('.')}: ${issue.message}` });
        }
        continue;
      }
      data = result.data;
    }
    if (data.idle_timeout !== undefined) defaults.idleTimeoutMs = parseDuration(data.idle_timeout) ?? null;
    if (data.resume_grace !== undefined) defaults.resumeGraceMs = parseDuration(data.resume_grace) ?? 0;
    if (data.worktrees !== undefined) defaults.worktrees = data.worktrees;
  }

  const clis = new Map<string, CliSpec>();
  const names = new Set(files.flatMap((f) => (f ? [...f.clis.keys()] : [])));
  for (const name of names) {
    // Field by field, later files win; a field's problem is reported against the file that set it.
    const layers = files.filter((f): f is ParsedFile => !!f && f.clis.has(name));
    const merged: RawTable = {};
    const origin = new Map<string, string>();
    for (const layer of layers) {
      for (const [key, value] of Object.entries(layer.clis.get(name)!)) {
        merged[key] = value;
        origin.set(key, layer.file);
      }
    }
    const entry = validateEntry(name, merged, origin, layers.at(-1)!.file);
    if (entry.problems.length > 0 && layers.length > 1) {
      // The user's layer broke a shipped entry: keep the shipped one working and say why.
      problems.push(...entry.problems.map((p) => ({ ...p, message: `${p.message} (using the shipped entry instead)` })));
      const shipped = layers[0]!;
      const fallback = validateEntry(name, shipped.clis.get(name)!, new Map(), shipped.file);
      if (fallback.problems.length === 0) clis.set(name, toSpec(name, fallback.data!, options.pathEnv));
      else problems.push(...fallback.problems);
      continue;
    }
    problems.push(...entry.problems);
    if (entry.problems.length === 0) clis.set(name, toSpec(name, entry.data!, options.pathEnv));
  }
  const texts = new Map(files.flatMap((f) => (f ? [[f.file, f.text] as const] : [])));
  return { clis, defaults, problems: problems.map((p) => withLine(p, texts.get(p.file))) };
}

/** A problem with the line it is on, found in its file's text (a syntax error has its line already). */
function withLine(problem: CatalogueProblem, text: string | undefined): CatalogueProblem {
  if (problem.line !== undefined || text === undefined || (problem.cli === undefined && problem.field === undefined)) return problem;
  const { cli, field } = problem;
  const line =
    cli !== undefined ? tomlLine(text, ['cli', cli], field) : field!.startsWith('defaults.') ? tomlLine(text, ['defaults'], field!.slice('defaults.'.length)) : tomlLine(text, null, field);
  if (line === undefined || !problem.message.startsWith(`${problem.file}: `)) return problem;
  return { ...problem, line, message: `${problem.file}:${line}: ${problem.message.slice(problem.file.length + 2)}` };
}

/**
 * The catalogue read again after an edit, where the edit broke something: a CLI the new read
 * lost because its file no longer parses, or because its entry is refused, keeps the definition
 * it had (its sessions keep their agent, their attention patterns and their start), and a problem
 * says so; the defaults stay too while a file does not parse. A CLI removed from a file that
 * reads cleanly is gone, as meant.
 */
export function keepLastGood(previous: Catalogue, next: Catalogue): Catalogue {
  const unparsed = next.problems.find((p) => p.cli === undefined && p.field === undefined);
  const clis = new Map(next.clis);
  const problems = [...next.problems];
  for (const [name, spec] of previous.clis) {
    if (clis.has(name)) continue;
    const refused = next.problems.find((p) => p.cli === name);
    const cause = refused ?? unparsed;
    if (!cause) continue;
    clis.set(name, spec);
    problems.push({ file: cause.file, cli: name, message: `${cause.file}: cli "${name}" is kept as it was last read, until the problem above is mended` });
  }
  return { clis, defaults: unparsed ? previous.defaults : next.defaults, problems };
}

function readCatalogueFile(file: string, problems: CatalogueProblem[], required: boolean): ParsedFile | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !required) return null;
    problems.push({ file, message: `${file}: cannot read the file: ${(err as Error).message}` });
    return null;
  }
  let doc: RawTable;
  try {
    doc = parse(text) as RawTable;
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      problems.push({ file, line: err.line, column: err.column, message: `${file}:${err.line}:${err.column}: ${reason}` });
    } else {
      problems.push({ file, message: `${file}: ${(err as Error).message}` });
    }
    return null;
  }
  const parsed: ParsedFile = { file, text, defaults: {}, clis: new Map() };
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'defaults' && isTable(value)) parsed.defaults = value;
    else if (key === 'cli' && isTable(value)) {
      for (const [name, entry] of Object.entries(value)) {
        if (!/^[a-z0-9][a-z0-9_-]{0,31}$/i.test(name)) {
          problems.push({ file, cli: name, message: `${file}: cli "${name}": a CLI name is letters, digits, "-" and "_" (at most 32)` });
        } else if (!isTable(entry)) {
          problems.push({ file, cli: name, message: `${file}: cli "${name}" must be a table ([cli.${name}])` });
        } else {
          parsed.clis.set(name, entry);
        }
      }
    } else {
      problems.push({ file, field: key, message: `${file}: unknown top-level key "${key}" (expected [defaults] or [cli.<name>])` });
    }
  }
  return parsed;
}


/** An entry's problems, or its fields as parsed (once: the spec is made from them). */
function validateEntry(name: string, raw: RawTable, origin: Map<string, string>, lastFile: string): { problems: CatalogueProblem[]; data?: CliData } {
  const problems: CatalogueProblem[] = [];
  const where = (field: string) => origin.get(field.split(/[.[,]/)[0]!) ?? lastFile;
  let data: CliData | null = plainEntry(raw);
  if (!data) {
    const result = catalogueSchemas().cli.safeParse(raw);
    if (!result.success) {
      for (const issue of result.error.issues) {
        // An unknown key inside a table (answers, key_from_file) is named with its table's path.
        const field = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => formatPath([...issue.path, key])).join(', ') : formatPath(issue.path);
        const message = issue.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''}` : issue.message;
        const file = where(field);
        problems.push({ file, cli: name, field, message: `${file}: cli "${name}", field ${field}: ${message}` });
      }
    } else data = result.data;
  }
  // The placeholders too, whatever else is wrong: every problem of an entry is said at once.
  const checks: [string, unknown, readonly string[]][] = [
    ['args', raw.args, ARG_PLACEHOLDERS],
    ['resume', raw.resume, RESUME_PLACEHOLDERS],
  ];
  for (const [field, template, allowed] of checks) {
    if (!isStrings(template)) continue;
    template.forEach((arg, index) => {
      for (const [, placeholder] of arg.matchAll(/\{([^{}]*)\}/g)) {
        if (allowed.includes(placeholder!)) continue;
        const hint =
          placeholder === 'cli_session_id'
            ? '{cli_session_id} is known only when resuming; use it in resume'
            : `unknown placeholder {${placeholder}} (known: ${allowed.map((p) => `{${p}}`).join(', ')})`;
        const file = where(field);
        problems.push({ file, cli: name, field: `${field}[${index}]`, message: `${file}: cli "${name}", field ${field}[${index}]: ${hint}` });
      }
    });
  }
  return problems.length > 0 || !data ? { problems } : { problems, data };
}

function toSpec(name: string, data: CliData, pathEnv: string | undefined): CliSpec {
  const idle = data.idle_timeout === undefined ? undefined : parseDuration(data.idle_timeout);
  const grace = data.resume_grace === undefined ? undefined : parseDuration(data.resume_grace) ?? 0;
  return {
    name,
    label: data.label ?? name,
    command: data.command,
    args: data.args,
    resume: data.resume && data.resume.length > 0 ? data.resume : null,
    color: data.color,
    env: data.env,
    boxed: data.boxed,
    attention: data.attention.map((source) => new RegExp(source, 'm')),
    setup: data.setup.map((source) => new RegExp(source, 'm')),
    ready: data.ready ? new RegExp(data.ready, 'm') : null,
    answers: data.answers ?? null,
    keyFromOutput: data.key_from_output ? new RegExp(data.key_from_output, 'm') : null,
    keyFromFile: data.key_from_file ?? null,
    deadKey: data.dead_key ?? null,
    conversation: data.conversation ?? null,
    sessionsDb: data.sessions_db ?? null,
    idleTimeoutMs: idle,
    resumeGraceMs: grace,
    path: resolveCommand(data.command, pathEnv),
  };
}

/** The absolute path of an executable file, or null. A bare name is looked up on PATH. */
export function resolveCommand(command: string, pathEnv: string | undefined): string | null {
  if (command === LOGIN_SHELL) command = loginShell();
  if (command.includes('/')) {
    return path.isAbsolute(command) && isExecutableFile(command) ? command : null;
  }
  for (const dir of (pathEnv ?? '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

function loginShell(): string {
  try {
    const shell = os.userInfo().shell;
    if (shell) return shell;
  } catch {
    // no passwd entry: fall through
  }
  return process.env.SHELL || '/bin/sh';
}

function isExecutableFile(file: string): boolean {
  try {
    // Most places on PATH do not hold the command: asked without an error for them (making one, with its stack, is most of a miss's cost).
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Fills a template's placeholders. Every placeholder was checked when the catalogue loaded. */
export function expandTemplate(template: string[], values: PlaceholderValues): string[] {
  return template.map((arg) =>
    arg.replace(/\{([a-z_]+)\}/g, (whole, key: string) => values[key as keyof PlaceholderValues] ?? whole),
  );
}

export function usesPlaceholder(template: string[] | null, placeholder: string): boolean {
  return !!template && template.some((arg) => arg.includes(`{${placeholder}}`));
}

export function cliView(spec: CliSpec): CliView {
  return {
    name: spec.name,
    label: spec.label,
    color: spec.color,
    installed: spec.path !== null,
    path: spec.path,
    resumable: spec.resume !== null,
    boxed: spec.boxed,
    answers: spec.answers,
  };
}

function isTable(value: unknown): value is RawTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function formatPath(parts: PropertyKey[]): string {
  return parts.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)), '');
}
