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

  it('a name refuses characters drawn as nothing, which would make it look like another, and keeps emoji sequences', () => {
    expect(() => checkName('billing\u2060-task-1')).toThrow('name must not contain characters that are not shown: U+2060 at character 8 would make it look like another name');
    for (const [name, code] of [['a\u200bb', 'U+200B'], ['x\ufeffy', 'U+FEFF'], ['a\u200db', 'U+200D'], ['ab\u200f', 'U+200F'], ['t\u{e0041}ag', 'U+E0041'], ['soft\u00adhyphen', 'U+00AD']]) {
      expect(() => checkName(name), name).toThrow(`not shown: ${code}`);
    }
    // A variation selector after a letter, or after another; Braille's blank; the other format controls.
    for (const [name, code] of [['s01-busy\ufe00', 'U+FE00'], ['s05-asker\u{e0100}', 'U+E0100'], ['ok\u2714\ufe0f\ufe0f', 'U+FE0F'], ['a\u2800b', 'U+2800'], ['a\ufff9b', 'U+FFF9'], ['a\u{1d173}b', 'U+1D173'], ['a\u{1bca0}b', 'U+1BCA0'], ['a\u180eb', 'U+180E']]) {
      expect(() => checkName(name), name).toThrow(`not shown: ${code}`);
    }
    // A zero-width joiner between two pictographs draws one emoji: it is seen; so is a variation
    // selector that picks a form: a pictograph's, a keycap's, an ideograph's.
    expect(checkName('\u{1f469}\u200d\u{1f4bb} frontend')).toBe('\u{1f469}\u200d\u{1f4bb} frontend');
    for (const name of ['done \u2714\ufe0f', 'text \u263a\ufe0e', 'step 1\ufe0f\u20e3', '\u845b\u{e0100}飾 ward', '\u{1f3f4}\u200d\u2620\ufe0f ship']) expect(checkName(name), name).toBe(name);
    expect(defaultName('/tmp/billing\u2060\u200b-api')).toBe('billing_-api');
    expect(terminalSafe('billing\u2060-task-1')).toBe('billing\\u{2060}-task-1');
    expect(terminalJson({ name: 't\u{e0041}' })).toBe('{\n  "name": "t\\udb40\\udc41"\n}');
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
