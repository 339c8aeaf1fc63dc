// A resume key never leaves the daemon: not in event details over the API, the events stream,
// MCP or the CLI, to any token. The database keeps the whole event.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../contract/session';
import { publicEvent, publicEvents } from '../engine/publicEvent';
import { makeRig, storedEvents } from './support/rig';
import { waitFor } from './support/wait';
import { collect, serveRig, type Served } from './support/serveRig';
import { CORRAL } from './support/serve';

const event = (kind: SessionEvent['kind'], detail: Record<string, unknown>, message = 'm'): SessionEvent => ({ id: 1, sessionId: 's', at: 0, kind, message, detail });
const KEY = '019a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8';

describe('publicEvent', () => {
  it('keeps an argv its shape, with the key replaced wherever it stands', () => {
    const shown = publicEvent(event('resumed', { argv: ['/bin/claude', '--resume', KEY, `--session=${KEY}`] }), [KEY]);
    expect(shown.detail).toEqual({ argv: ['/bin/claude', '--resume', '<resume key>', '--session=<resume key>'] });
  });

  it('shows a dropped key as a hint, a learned key not at all, and hides them in any text', () => {
    const failed = publicEvent(event('resume-failed', { droppedKey: KEY, code: 1, output: `No conversation found with session ID: ${KEY}` }));
    expect(failed.detail).toEqual({ droppedKeyHint: '019a2b3c…', code: 1, output: 'No conversation found with session ID: <resume key>' });
    expect(publicEvent(event('key-dropped', { droppedKey: null })).detail).toEqual({ droppedKeyHint: null });
    expect(publicEvent(event('key-learned', { key: KEY, from: 'output' })).detail).toEqual({ keyHint: '019a2b3c…', from: 'output' });
  });

  it('hides every key a session had in each of its events, and a short key only where it is a whole value', () => {
    const log = [event('started', { argv: ['x', 'fresh', KEY] }), event('key-dropped', { droppedKey: KEY }), event('started', { argv: ['x', 'fresh', 'k1', 'k1k1'] })];
    const shown = publicEvents(log, 'k1');
    expect(shown.map((e) => e.detail)).toEqual([{ argv: ['x', 'fresh', '<resume key>'] }, { droppedKeyHint: '019a2b3c…' }, { argv: ['x', 'fresh', '<resume key>', 'k1k1'] }]);
    expect(JSON.stringify(shown)).not.toContain(KEY);
  });
});

describe('over a real corral serve', () => {
  let s: Served;
  let readOnly: string;
  const picked = crypto.randomUUID();

  beforeAll(async () => {
    const rig = await makeRig();
    // A CLI that picks its own id and says it when it ends, the way Codex does.
    rig.fake('picker', `#!/bin/bash\n[ "$1" = resume ] && echo "RESUMED"\nwhile IFS= read -r line; do [ "$line" = quit ] && break; done\necho "To continue this session, run codex resume ${picked}."\n`);
    fs.appendFileSync(path.join(rig.home, 'clis.toml'), `\n[cli.picker]\ncommand = "picker"\nresume = ["resume", "{cli_session_id}"]\nkey_from_output = 'codex resume ([0-9a-f-]{36})'\n`);
    s = await serveRig([], rig);
    readOnly = s.cli(['token', 'create', 'viewer', '--read-only']).stdout.trim();
  });
  afterAll(async () => {
    await s.rig.cleanup();
  });

  it('no event a client can read carries the key: API, events stream, MCP and `corral events`', async () => {
    const watcher = s.ws('/api/events', { token: readOnly });
    const stream = collect(watcher);
    await stream.opened;
    const id = (await s.api('POST', '/api/sessions', { body: { cli: 'picker', cwd: s.rig.home, name: 'picks' } })).body.id as string;
    await s.api('POST', `/api/sessions/${id}/input`, { body: { text: 'quit\r' } });
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}`)).body.state === 'exited', 'the exit');
    expect((await s.api('POST', `/api/sessions/${id}/start`)).body.resumed).toBe(true);
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('RESUMED'), 'the resume');
    await s.api('POST', `/api/sessions/${id}/stop`);
    await s.api('POST', `/api/sessions/${id}/forget-key`);
    await waitFor(() => stream.messages.some((m) => m.event?.kind === 'key-dropped'), 'the key to be let go, on the stream');

    // The database keeps everything.
    const stored = storedEvents(s.rig, id);
    expect(stored.find((e) => e.kind === 'key-learned')?.detail.key).toBe(picked);
    expect(stored.find((e) => e.kind === 'resuming')?.detail.argv).toContain(picked);
    expect(stored.find((e) => e.kind === 'key-dropped')?.detail.droppedKey).toBe(picked);

    const events = (await s.api('GET', `/api/sessions/${id}/events`, { token: readOnly })).body.events as SessionEvent[];
    expect(events.map((e) => e.kind)).toEqual(['created', 'started', 'key-learned', 'exited', 'resuming', 'stopped', 'key-dropped']);
    expect(events.find((e) => e.kind === 'resuming')?.detail.argv).toEqual([path.join(s.rig.bin, 'picker'), 'resume', '<resume key>']);
    expect(events.find((e) => e.kind === 'key-dropped')?.detail).toEqual({ droppedKeyHint: `${picked.slice(0, 8)}…` });
    expect(JSON.stringify(events)).not.toContain(picked);
    expect(JSON.stringify(stream.messages)).not.toContain(picked);
    watcher.close();

    const cli = s.cli(['events', id]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('key-dropped');
    expect(cli.stdout).not.toContain(picked);

    const transport = new StdioClientTransport({ command: process.execPath, args: [CORRAL, 'mcp'], env: { ...(s.env as Record<string, string>), CORRAL_TOKEN: readOnly }, stderr: 'pipe' });
    const client = new Client({ name: 'corral-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const answer = await client.callTool({ name: 'get_session', arguments: { id } });
      const text = (answer.content as { text: string }[])[0]!.text;
      expect(JSON.parse(text).events.map((e: SessionEvent) => e.kind)).toContain('key-learned');
      expect(text).not.toContain(picked);
    } finally {
      await client.close();
    }
  });
});
