// A throwaway world for engine tests: a temp home, a private tmux socket, fake CLIs that
// log how they were started. Nothing here can touch a real home, tmux server or agent.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { Engine, type EngineOptions } from '../../engine/engine';
import { killTmux } from './tmux';

export interface Rig {
  home: string;
  bin: string;
  socket: string;
  /** One line per launch of a fake CLI: "<cli> <args…>". */
  argvLog: string;
  /** Every read the `agent` fakes got, one JSON string a line. */
  inputLog: string;
  /** A file here named after a key makes that conversation resumable. */
  conversations: string;
  env: NodeJS.ProcessEnv;
  engines: Engine[];
  open(options?: Partial<EngineOptions>): Promise<Engine>;
  launches(): string[];
  addConversation(key: string): void;
  writeCatalogue(toml: string): void;
  fake(name: string, script: string): string;
  cleanup(): Promise<void>;
}

/** A fake agent. `fresh <id>` starts a conversation; `resume <key>` resumes one if it exists. */
const FAKER = (rig: { argvLog: string; conversations: string }) => `#!/bin/bash
echo "faker $*" >> '${rig.argvLog}'
if [ "$1" = "resume" ]; then
  if [ -e '${rig.conversations}'/"$2" ]; then
    echo "RESUMED $2"
  else
    sleep "\${FAKER_REFUSE_AFTER:-0.2}"
    echo "No conversation found with session ID: $2"
    exit 1
  fi
else
  if [ -e '${rig.conversations}/FRESH_FAILS' ]; then echo "fresh start failed"; exit 3; fi
  echo "FRESH START $2"
fi
key="$2"
# An echoing prompt. Like a real agent, the conversation is saved at the first message.
while IFS= read -r line; do
  [ "$1" = "fresh" ] && touch '${rig.conversations}'/"$key"
  echo "echo: $line"
done
exec sleep 600
`;

export const FAKER_CATALOGUE = `
[cli.faker]
label   = "Faker"
command = "faker"
args    = ["fresh", "{id}"]
resume  = ["resume", "{cli_session_id}"]
color   = "#8b8b8b"
`;

/**
 * Fakes that behave like the real CLIs (fakes/agent.mjs): `agent` knows a dead key only by its
 * words, which come after FAKE_DEAD_AFTER seconds (9 by default, as slow as the real ones);
 * `keeper` also tells Corral where it keeps its conversations, so a dead key is known at once.
 */
export const AGENT_CATALOGUE = (conversations: string) => `
[cli.agent]
label    = "Agent"
command  = "agent"
args     = ["fresh", "{id}"]
resume   = ["resume", "{cli_session_id}"]
dead_key = 'No conversation found with session ID: {cli_session_id}'

[cli.keeper]
label    = "Keeper"
command  = "keeper"
args     = ["fresh", "{id}"]
resume   = ["resume", "{cli_session_id}"]
dead_key = 'No conversation found with session ID: {cli_session_id}'
conversation = "${conversations}/{cli_session_id}"
`;

export const AGENT_SCRIPT = path.join(import.meta.dirname, 'fakes', 'agent.mjs');

export async function makeRig(): Promise<Rig> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'corral-t-'));
  const home = path.join(root, 'home');
  const bin = path.join(root, 'bin');
  const conversations = path.join(root, 'conversations');
  for (const dir of [home, bin, conversations]) fs.mkdirSync(dir);
  const argvLog = path.join(root, 'argv.log');
  fs.writeFileSync(argvLog, '');
  const socket = `corral-test-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  const rig: Rig = {
    home,
    bin,
    socket,
    argvLog,
    inputLog: path.join(root, 'input.log'),
    conversations,
    env,
    engines: [],
    async open(options = {}) {
      const engine = await Engine.open({ home, tmuxSocket: socket, env, resumeGraceMs: 1_500, holder: 'a test engine', ...options });
      rig.engines.push(engine);
      return engine;
    },
    launches: () => fs.readFileSync(argvLog, 'utf8').split('\n').filter(Boolean),
    addConversation: (key) => fs.writeFileSync(path.join(conversations, key), ''),
    writeCatalogue: (toml) => fs.writeFileSync(path.join(home, 'clis.toml'), toml),
    fake(name, script) {
      const file = path.join(bin, name);
      fs.writeFileSync(file, script, { mode: 0o755 });
      return file;
    },
    async cleanup() {
      for (const engine of rig.engines) await engine.close().catch(() => {});
      killTmux(socket);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  rig.fake('faker', FAKER(rig));
  const agent = `#!/bin/sh\nexec '${process.execPath}' '${AGENT_SCRIPT}' --conversations '${conversations}' --log '${argvLog}' --input-log '${path.join(root, 'input.log')}' "$@"\n`;
  rig.fake('agent', agent);
  rig.fake('keeper', agent);
  rig.writeCatalogue(FAKER_CATALOGUE + AGENT_CATALOGUE(conversations));
  return rig;
}

export async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (last) return last as NonNullable<T>;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads the resume key straight from corral.db: the API never shows it. */
export function storedKey(rig: Rig, id: string): string | null {
  const db = new Database(path.join(rig.home, 'corral.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT resume_key AS key FROM sessions WHERE id = ?').get(id) as { key: string | null } | undefined;
    if (!row) throw new Error(`no row for session ${id}`);
    return row.key;
  } finally {
    db.close();
  }
}

/** A session's events as corral.db keeps them, every detail included: the API shows less. */
export function storedEvents(rig: Rig, id: string): { kind: string; detail: Record<string, unknown> }[] {
  const db = new Database(path.join(rig.home, 'corral.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT kind, detail FROM events WHERE session_id = ? ORDER BY id').all(id) as { kind: string; detail: string }[];
    return rows.map((row) => ({ kind: row.kind, detail: JSON.parse(row.detail) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}
