// Bad input gets a typed error that says what was wrong and where, and changes nothing.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionChange } from '../contract/session';
import type { Engine } from '../engine/engine';
import { notInstalled } from '../engine/checks';
import type { CliSpec } from '../catalogue/catalogue';
import { parseRequest } from '../contract/contract';
import { CorralError } from '../contract/errors';
import { makeRig, storedEvents, storedKey, type Rig } from './support/rig';
import { waitFor } from './support/wait';

let rig: Rig;
let engine: Engine;
let existing: string;

beforeAll(async () => {
  rig = await makeRig();
  rig.writeCatalogue(`
[cli.faker]
command = "faker"
args = ["fresh", "{id}"]
resume = ["resume", "{cli_session_id}"]

[cli.missing]
label = "Missing Agent"
command = "no-such-agent-anywhere"
`);
  engine = await rig.open();
  existing = (await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'existing' })).id;
  // Its fake logs its start as it runs: counted before the first rejection, not during it.
  await waitFor(() => rig.launches().length === 1, 'the existing session to start');
});
afterAll(async () => {
  await rig.cleanup();
});

async function rejects(call: () => Promise<unknown>, code: string, message: string, field?: string) {
  const before = JSON.stringify((await engine.listSessions()).sessions);
  const launches = rig.launches().length;
  const error = await call().then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(CorralError);
  expect((error as CorralError).toShape()).toEqual(field ? { code, message, field } : { code, message });
  // Nothing changed: no session row, no process, the key where it was.
  expect(JSON.stringify((await engine.listSessions()).sessions)).toBe(before);
  expect(rig.launches()).toHaveLength(launches);
  expect(storedKey(rig, existing)).toBe(existing);
}

describe('bad requests', () => {
  it('an unknown CLI', () =>
    rejects(() => engine.createSession({ cli: 'nope', cwd: rig.home }), 'unknown_cli', 'no CLI named "nope" in the catalogue (known: claude, codex, gemini, qwen, opencode, aider, shell, faker, missing)', 'cli'));

  it('a CLI that is not installed', () =>
    rejects(() => engine.createSession({ cli: 'missing', cwd: rig.home }), 'cli_not_installed', 'Missing Agent is not installed: "no-such-agent-anywhere" was not found on PATH', 'cli'));

  it('a CLI whose command is a path that is not there is not said to be missing from PATH', () => {
    expect(notInstalled({ label: 'Pinned', command: '/opt/nowhere/agent' } as CliSpec).toShape()).toEqual({
      code: 'cli_not_installed',
      message: 'Pinned is not installed: "/opt/nowhere/agent" is not an executable file (a path must be absolute)',
      field: 'cli',
    });
  });

  it('a folder that does not exist', () =>
    rejects(() => engine.createSession({ cli: 'faker', cwd: path.join(rig.home, 'gone') }), 'cwd_missing', `the folder ${path.join(rig.home, 'gone')} does not exist`, 'cwd'));

  it('a folder that is a file', () => {
    const file = path.join(rig.home, 'a-file');
    fs.writeFileSync(file, '');
    return rejects(() => engine.createSession({ cli: 'faker', cwd: file }), 'cwd_not_folder', `${file} is not a folder`, 'cwd');
  });

  it('a relative folder', () =>
    rejects(() => engine.createSession({ cli: 'faker', cwd: 'src' }), 'bad_request', 'cwd must be an absolute path or start with ~/, not "src"', 'cwd'));

  it('an empty name', () => rejects(() => engine.createSession({ cli: 'faker', cwd: rig.home, name: '   ' }), 'bad_name', 'name must not be empty', 'name'));

  it('a name over 100 characters', () =>
    rejects(() => engine.createSession({ cli: 'faker', cwd: rig.home, name: 'x'.repeat(101) }), 'bad_name', 'name must be at most 100 characters', 'name'));

  it('a name with control characters', () =>
    rejects(() => engine.renameSession({ id: existing, name: 'evil\u001b[2Jname' }), 'bad_name', 'name must not contain control characters', 'name'));

  it('an unknown session, for every method that takes one', async () => {
    const message = 'no session with id "00000000-0000-0000-0000-000000000000"';
    const id = '00000000-0000-0000-0000-000000000000';
    for (const call of [
      () => engine.getSession({ id }),
      () => engine.startSession({ id }),
      () => engine.stopSession({ id }),
      () => engine.removeSession({ id }),
      () => engine.renameSession({ id, name: 'x' }),
      () => engine.write({ id, text: 'x' }),
      () => engine.resize({ id, cols: 80, rows: 24 }),
      () => engine.screen({ id }),
      () => engine.events({ id }),
      () => engine.receipt({ id }),
      () => engine.forgetKey({ id }),
    ]) {
      await rejects(call, 'unknown_session', message, 'id');
    }
  });

  it('a bad size or line count names the field', async () => {
    await rejects(() => engine.resize({ id: existing, cols: 0, rows: 24 }), 'bad_request', 'cols must be a whole number from 2 to 1000', 'cols');
    await rejects(() => engine.resize({ id: existing, cols: 80, rows: 1.5 }), 'bad_request', 'rows must be a whole number from 2 to 500', 'rows');
    // A request's shape is checked by the contract's table, at every boundary (HTTP, IPC).
    await rejects(async () => engine.screen(parseRequest('screen', { id: existing, lines: 0 })), 'bad_request', 'lines must be a whole number from 1 to 10000', 'lines');
    await rejects(async () => engine.screen(parseRequest('screen', { id: existing, lines: 2.5 })), 'bad_request', 'lines must be a whole number from 1 to 10000', 'lines');
    await rejects(async () => engine.write(parseRequest('write', { id: existing, text: 'x', data: 'x' })), 'bad_request', 'unknown field: data', 'data');
  });

  it('removing a running session without force is a conflict', async () => {
    await rejects(() => engine.removeSession({ id: existing }), 'conflict', 'session "existing" is running: stop it first, or remove it with force');
    expect(await engine.backend.isAlive(existing)).toBe(true);
  });

  it('typing into a stopped session is a conflict', async () => {
    const other = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'other' });
    await engine.stopSession({ id: other.id });
    await rejects(() => engine.write({ id: other.id, text: 'x' }), 'conflict', 'session "other" is not running: start it first');
    await engine.removeSession({ id: other.id });
  });
});

describe('good requests', () => {
  it('a name defaults to the folder and can be changed', async () => {
    const dir = path.join(rig.home, 'my-project');
    fs.mkdirSync(dir);
    const session = await engine.createSession({ cli: 'faker', cwd: dir });
    expect(session.name).toBe('my-project');
    const renamed = await engine.renameSession({ id: session.id, name: '  api work  ' });
    expect(renamed.name).toBe('api work');
    expect((await engine.events({ id: session.id })).events.at(-1)?.message).toBe('renamed from "my-project" to "api work"');
    await engine.removeSession({ id: session.id, force: true });
    expect(await engine.backend.isAlive(session.id)).toBe(false);
    await expect(engine.getSession({ id: session.id })).rejects.toThrow('no session with id');
  });

  it('forgetting the key makes the next start clean, and the log names the key let go', async () => {
    const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'forget' });
    await engine.stopSession({ id: session.id });
    await engine.forgetKey({ id: session.id });
    expect((await engine.events({ id: session.id })).events.at(-1)?.detail.droppedKeyHint).toBe(`${session.id.slice(0, 8)}…`);
    expect(storedEvents(rig, session.id).at(-1)?.detail.droppedKey).toBe(session.id);
    expect((await engine.startSession({ id: session.id })).resumed).toBe(false);
    await waitFor(() => rig.launches().at(-1)?.startsWith('faker fresh ') && rig.launches().at(-1) !== `faker fresh ${session.id}`, 'a clean start with a new id');
    await engine.removeSession({ id: session.id, force: true });
  });

  it('session changes are pushed to subscribers', async () => {
    // Only the lifecycle speaks here: the screen and git watchers (which also push changes, when
    // activity or a branch changes) look no more than once a minute.
    await engine.close();
    engine = await rig.open({ attentionIntervalMs: 60_000, gitIntervalMs: 60_000 });
    const changes: SessionChange[] = [];
    const unsubscribe = engine.onSessionChange((change) => changes.push(change));
    const session = await engine.createSession({ cli: 'faker', cwd: rig.home, name: 'watched' });
    await engine.stopSession({ id: session.id });
    await engine.removeSession({ id: session.id });
    unsubscribe();
    // This session's (the other sessions of the home have changes of their own).
    const seen = changes.filter((c) => c.session.id === session.id).map((c) => `${c.kind}:${c.session.state}:${c.event?.kind ?? '-'}`);
    expect(seen).toEqual([
      'added:stopped:created',
      'updated:starting:-',
      'updated:starting:started',
      'updated:running:-',
      'updated:stopped:stopped',
      'removed:stopped:-',
    ]);
  });
});

describe('a CLI that picks its own session id', () => {
  it('has its key learned from its output, and the next start resumes exactly that id', async () => {
    const picked = '019a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8';
    rig.fake('picker', `#!/bin/bash\necho "picker $*" >> '${rig.argvLog}'\nwhile IFS= read -r line; do [ "$line" = quit ] && break; done\necho "To continue this session, run codex resume ${picked}."\n`);
    fs.appendFileSync(
      path.join(rig.home, 'clis.toml'),
      `\n[cli.picker]\ncommand = "picker"\nresume = ["resume", "{cli_session_id}"]\nkey_from_output = 'codex resume ([0-9a-f-]{36})'\n`,
    );
    engine.reloadCatalogue();
    const session = await engine.createSession({ cli: 'picker', cwd: rig.home, name: 'picks' });
    expect(session.resumable).toBe(false);
    await engine.write({ id: session.id, text: 'quit\r' });
    await waitFor(async () => (await engine.getSession({ id: session.id })).state === 'exited', 'the exit');
    expect(storedKey(rig, session.id)).toBe(picked);
    expect(storedEvents(rig, session.id).some((e) => e.kind === 'key-learned' && e.detail.key === picked)).toBe(true);
    const learned = (await engine.events({ id: session.id })).events.find((e) => e.kind === 'key-learned');
    expect(learned?.detail).toEqual({ keyHint: '019a2b3c…', from: 'output' });
    expect((await engine.startSession({ id: session.id })).resumed).toBe(true);
    await waitFor(() => rig.launches().at(-1) === `picker resume ${picked}`, 'the resume with the learned id');
  });
});
