// Escape codes and bidi controls in a folder's or a session's name never reach a terminal:
// names refuse them, a default name is made safe from a hostile folder, and everything the CLI
// prints from the daemon shows them instead of obeying them.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkName, defaultName } from '../engine/checks';
import { NAME_MAX } from '../contract/session';
import { terminalJson, terminalSafe } from '../cli/terminalText';
import { serveRig, type Served } from './support/serveRig';

const HOSTILE = 'proj\u001b]0;pwned\u0007\u001b[2J\u202egnp.exe\u2066\u009b\nend';
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('text for a terminal', () => {
  it('writes control and bidi characters out, keeping lines where asked', () => {
    expect(terminalSafe('a\u001b[2Jb\u202ec\n\td')).toBe('a\\u{1b}[2Jb\\u{202e}c\n\td');
    expect(terminalSafe('a\nb\tc\rd', { lines: false })).toBe('a\\u{a}b\\u{9}c\\u{d}d');
    expect(JSON.parse(terminalJson({ name: HOSTILE }))).toEqual({ name: HOSTILE });
    expect(terminalJson({ name: HOSTILE })).not.toMatch(RAW);
  });

  it('a name refuses control characters and bidi controls, each named', () => {
    expect(() => checkName('a\u001bb')).toThrow('name must not contain control characters');
    for (const bidi of ['\u202a', '\u202e', '\u2066', '\u2069']) {
      expect(() => checkName(`a${bidi}b`)).toThrow('name must not contain bidi controls (U+202A–U+202E, U+2066–U+2069)');
    }
    expect(checkName('ünïcode ✓')).toBe('ünïcode ✓');
  });

  it('a default name is made safe from a hostile folder, never a failed create', () => {
    expect(defaultName(`/tmp/${HOSTILE}`)).toBe('proj_]0;pwned_[2J_gnp.exe_end');
    expect(() => checkName(defaultName(`/tmp/${HOSTILE}`))).not.toThrow();
    expect(defaultName('/tmp/\u001b\u202e')).toBe('_');
    expect(defaultName('/tmp/plain')).toBe('plain');
    // Numbered past the names in use, within the longest name.
    expect(defaultName('/tmp/plain', new Set(['plain', 'plain 2', 'other']))).toBe('plain 3');
    const long = 'x'.repeat(NAME_MAX);
    expect(defaultName(`/tmp/${long}`, new Set([long]))).toBe(`${'x'.repeat(NAME_MAX - 2)} 2`);
  });
});

describe('over a real corral serve', () => {
  let s: Served;
  let folder: string;
  beforeAll(async () => {
    s = await serveRig();
    folder = path.join(s.rig.home, HOSTILE);
    fs.mkdirSync(folder);
  });
  afterAll(async () => {
    await s.rig.cleanup();
  });

  it("a session in a hostile folder is created, and `corral ls` and `corral events` print it harmlessly", async () => {
    const created = await s.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: folder } });
    expect(created.status).toBe(201);
    expect(created.body.name).not.toMatch(RAW);
    expect(created.body.cwd).toBe(folder);
    const renamed = await s.api('PATCH', `/api/sessions/${created.body.id}`, { body: { name: 'evil\u202egnp' } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error).toMatchObject({ code: 'bad_name', field: 'name' });

    for (const args of [['ls'], ['ls', '--json'], ['events', created.body.id]]) {
      const printed = s.cli(args);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout, args.join(' ')).not.toMatch(RAW);
      expect(printed.stdout).toContain(args[1] === '--json' ? '\\u001b]0;pwned\\u0007' : '\\u{1b}]0;pwned\\u{7}');
    }
    // The table keeps one line per session: the folder's newline is written out too.
    expect(s.cli(['ls']).stdout.trim().split('\n')).toHaveLength(2);
    // An error that names the session is made safe the same way.
    const refused = s.cli(['rm', created.body.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toMatch(RAW);
  });
});
