// The shipped attention patterns, each against a recorded screen of its CLI, and against the
// same CLI busy or idle (which must not count as waiting).

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askedOn, promptOn, QUESTION_MAX, waitingFor } from '../engine/attention';
import { loadCatalogue } from '../catalogue/catalogue';
import { SHIPPED_CATALOGUE } from '../engine/engine';
import { makeRig, type Rig } from './support/rig';
import { waitFor } from './support/wait';

const clis = loadCatalogue({ shippedFile: SHIPPED_CATALOGUE, pathEnv: '' }).clis;
const screen = (name: string) => fs.readFileSync(path.join(import.meta.dirname, 'screens', `${name}.txt`), 'utf8');

describe('shipped attention patterns', () => {
  it.each([
    ['claude', 'claude-bash', 'Do you want to proceed'],
    ['claude', 'claude-edit', 'Do you want to make this edit'],
    ['codex', 'codex-command', 'Would you like to run the following command?'],
    ['gemini', 'gemini-shell', 'Allow execution of'],
    ['aider', 'aider-confirm', '(Y)es/(N)o/(D)on\'t ask again [Yes]: '],
  ])('%s waits for its person on %s', (cli, name, matched) => {
    expect(waitingFor(screen(name), clis.get(cli)!.attention)).toContain(matched.trim());
  });

  it.each([
    ['claude', 'claude-trust', 'Is this a project you created or one you trust?'],
    // Recorded from the real CLIs (Claude Code 2.1.332, Codex 0.171, Gemini CLI 0.61, Qwen Code
    // 0.15.10) on their first run: trust, sign-in and API-key screens wait for the person too.
    ['claude', 'claude-trust-2.1', 'Is this a project you created or one you trust?'],
    ['claude', 'claude-theme', 'Choose the text style that looks best with your terminal'],
    ['claude', 'claude-api-key', 'Do you want to use this API key?'],
    ['codex', 'codex-trust', 'Trust this folder? Codex can read, edit, and run files here'],
    ['codex', 'codex-login', 'Choose how you want to use Codex.'],
    ['codex', 'codex-api-key', 'Paste or type your API key below.'],
    ['gemini', 'gemini-trust', 'Do you trust the files in this folder?'],
    ['gemini', 'gemini-auth', 'How would you like to authenticate for this project?'],
    ['gemini', 'gemini-api-key', 'Enter Gemini API Key'],
    ['qwen', 'qwen-auth', 'Select Authentication Method'],
    ['qwen', 'qwen-auth-custom', 'Enter to select, ↑↓ to navigate, Esc to go back'],
  ])('%s waits for its person on %s, a screen to set up that its approval keys do not answer', (cli, name, matched) => {
    expect(waitingFor(screen(name), clis.get(cli)!.setup)).toContain(matched.trim());
    expect(waitingFor(screen(name), clis.get(cli)!.attention)).toBeNull();
  });

  it.each([
    ['claude', 'claude-busy'],
    ['codex', 'codex-busy'],
    ['gemini', 'gemini-idle'],
    ['aider', 'aider-idle'],
    ['claude', 'claude-main'],
    ['codex', 'codex-main'],
    ['gemini', 'gemini-main'],
    ['qwen', 'qwen-main'],
    ['opencode', 'opencode-main'],
  ])('%s is not waiting on %s', (cli, name) => {
    expect(waitingFor(screen(name), clis.get(cli)!.attention)).toBeNull();
    expect(waitingFor(screen(name), clis.get(cli)!.setup)).toBeNull();
  });

  it.each([
    ['claude', 'claude-bash', 'Do you want to proceed?'],
    ['claude', 'claude-edit', 'Do you want to make this edit to app.ts?'],
    ['codex', 'codex-command', 'Would you like to run the following command?'],
    ['gemini', 'gemini-shell', 'Allow execution of [npm]?'],
    ['aider', 'aider-confirm', "Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:"],
  ])('%s on %s asks its whole question line, without its frame', (cli, name, question) => {
    expect(waitingFor(screen(name), clis.get(cli)!.attention)).toBe(question);
  });

  it.each([
    ['claude', 'claude-bash', 'npm test -- --run · Run the test suite'],
    ['codex', 'codex-command', '$ cargo test --workspace'],
    ['gemini', 'gemini-shell', '?  Shell npm run build'],
    // Menus, wrapped paragraphs and a masked key: nothing.
    ['claude', 'claude-theme', null],
    ['claude', 'claude-trust-2.1', null],
    ['claude', 'claude-api-key', null],
    ['codex', 'codex-login', null],
  ])('%s on %s says what it asks about: %s', (cli, name, about) => {
    expect(askedOn(screen(name), clis.get(cli)!)?.about).toBe(about);
  });

  it('what a question is about is a bounded block beside it, never the conversation at the screen edge, never a choice or a key', () => {
    const ask = [/Do you want to proceed\?/];
    expect(promptOn('ran things\n\n Bash command\n\n   rm -rf build\n\n Do you want to proceed?\n ❯ 1. Yes', ask)?.about).toBe('rm -rf build');
    // The lines above reach the screen's top: they may be anything the agent said.
    expect(promptOn('FRESH START\nask\nDo you want to proceed?\n', ask)?.about).toBeNull();
    // Three lines above: more than a command and its description.
    expect(promptOn('\none\ntwo\nthree\nDo you want to proceed?\n', ask)?.about).toBeNull();
    // Only choices next to it.
    expect(promptOn('\n\nDo you want to proceed?\n❯ 1. Yes\n  2. No\n', ask)?.about).toBeNull();
    expect(promptOn('\n   export OPENAI_API_KEY=abc\n\nDo you want to proceed?\n', ask)?.about).toBeNull();
    for (const secret of ['curl -H "Authorization: Bearer crl_abcdefghijklmnopqrstu" x', 'psql postgres://app:S3cr3t@db/app', 'mysql -uroot -pHunter2', 'git push https://github_pat_abcdefghijklmnopqrstuvw@github.com/x', 'echo AIzaSyA1234567890abcdefghijklmnop'])
      expect(promptOn(`\n   ${secret}\n\nDo you want to proceed?\n`, ask)?.about, secret).toBeNull();
  });

  it('a match on a line that asks nothing (a footer) gives the question above it', () => {
    expect(waitingFor(screen('claude-bash'), [/Esc to cancel · Tab to amend/])).toBe('Do you want to proceed?');
    expect(waitingFor(screen('codex-command'), [/Press enter to confirm or esc to cancel/])).toBe('Would you like to run the following command?');
    // With no question above, the line itself.
    expect(waitingFor('working…\nPress a key', [/Press a key/])).toBe('Press a key');
  });

  it('a long question line is cut to a length a list and a notification can show', () => {
    const question = waitingFor(`Do you want to ${'really '.repeat(60)}proceed?`, [/Do you want to/])!;
    expect(question).toHaveLength(QUESTION_MAX);
    expect(question.endsWith('…')).toBe(true);
  });

  it('looks at the current screen, not the history above it', () => {
    const old = `${screen('claude-bash')}\n${Array.from({ length: 80 }, (_, i) => `line ${i}`).join('\n')}`;
    expect(waitingFor(old, clis.get('claude')!.attention)).toBeNull();
  });
});

describe('a session that waits for its person', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await makeRig();
  });
  afterEach(async () => {
    await rig.cleanup();
  });

  it('needs you while its screen shows a prompt, stops needing you when you answer, and after an exit nobody asked for', async () => {
    rig.fake('asker', '#!/bin/bash\necho "thinking"\nread -r go\necho "Do you want to proceed?"\nread -r answer\nprintf "\\033[2J\\033[H"\necho "done: $answer"\nread -r quit\nexit 4\n');
    rig.writeCatalogue(`[cli.asker]\ncommand = "asker"\nattention = ['Do you want to proceed\\?']\n`);
    const engine = await rig.open({ attentionIntervalMs: 100 });
    const session = await engine.createSession({ cli: 'asker', cwd: rig.home, name: 'asks' });
    const needs = async () => (await engine.getSession({ id: session.id })).needsYou;
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('thinking'), 'the agent');
    await engine.watchAttention();
    expect(await needs()).toBeNull();

    await engine.write({ id: session.id, text: 'go\r' });
    const waiting = await waitFor(needs, 'the prompt to be seen');
    expect(waiting).toMatchObject({ source: 'screen', detail: 'Do you want to proceed?' });

    await engine.write({ id: session.id, text: 'yes\r' });
    expect(await needs()).toBeNull();
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('done: yes'), 'the answer');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await needs()).toBeNull();

    await engine.write({ id: session.id, text: 'bye\r' });
    await waitFor(async () => (await engine.getSession({ id: session.id })).state === 'exited', 'the exit');
    expect(await needs()).toMatchObject({ source: 'exit', detail: 'exited with code 4' });
    // Still worth a look after a restart of the engine, until it is started.
    await engine.close();
    const again = await rig.open({ attentionIntervalMs: 100 });
    expect((await again.getSession({ id: session.id })).needsYou).toMatchObject({ source: 'exit', detail: 'exited with code 4' });
    await again.startSession({ id: session.id });
    expect((await again.getSession({ id: session.id })).needsYou).toBeNull();
  });

  it('an answer stands while the agent is slow to draw it (the question still on its screen), and its next question needs you again', async () => {
    // It takes half a second to draw what it makes of the answer, as a busy agent may.
    rig.fake('slow', '#!/bin/bash\necho "Do you want to proceed?"\nread -r answer\nsleep 0.5\nprintf "\\033[2J\\033[H"\necho "done: $answer"\necho "Do you want to proceed? (again)"\nexec sleep 600\n');
    rig.writeCatalogue(`[cli.slow]\ncommand = "slow"\nattention = ['Do you want to proceed\\?']\n`);
    const engine = await rig.open({ attentionIntervalMs: 50 });
    const session = await engine.createSession({ cli: 'slow', cwd: rig.home, name: 'slow' });
    const needs = async () => (await engine.getSession({ id: session.id })).needsYou;
    await engine.watchAttention();
    expect(await waitFor(needs, 'the question to be seen')).toMatchObject({ source: 'screen', detail: 'Do you want to proceed?' });

    await engine.write({ id: session.id, text: 'yes\r' });
    // Looked at every 50 ms while the answered question is still there: never raised again.
    let looks = 0;
    while (!(await engine.screen({ id: session.id })).text.includes('done: yes')) {
      await engine.watchAttention();
      expect(await needs()).toBeNull();
      looks++;
    }
    expect(looks).toBeGreaterThan(0);
    expect(await waitFor(needs, 'the next question to be seen')).toMatchObject({ source: 'screen', detail: 'Do you want to proceed? (again)' });
  });

  it('takes a one-key answer only while the question it answers waits, and a question put in the place of another is a new one', async () => {
    // It asks about one command, then another; then, with nobody typing, puts a third in the
    // second's place (once told to by a file). Every line it reads is logged.
    const log = path.join(rig.home, 'read.log');
    const swap = path.join(rig.home, 'swap');
    rig.fake(
      'asker',
      `#!/bin/bash
ask() { printf "\\033[2J\\033[H"; echo; echo "Run: $1"; echo; echo "Do you want to proceed?"; }
ask "make test"; read -r a; echo "$a" >> ${log}
ask "rm -rf build"
while [ ! -e ${swap} ]; do sleep 0.02; done
ask "rm -rf /"; read -r b; echo "$b" >> ${log}
exec sleep 600
`,
    );
    rig.writeCatalogue(`[cli.asker]\ncommand = "asker"\nattention = ['Do you want to proceed\\?']\nanswers = { approve = "y\\r", deny = "n\\r" }\n`);
    const engine = await rig.open({ attentionIntervalMs: 3_600_000 });
    const session = await engine.createSession({ cli: 'asker', cwd: rig.home, name: 'asks' });
    const asked = (about: string) =>
      waitFor(async () => {
        await engine.watchAttention();
        const needs = (await engine.getSession({ id: session.id })).needsYou;
        return needs?.about === about ? needs : null;
      }, `the question about ${about}`);
    const read = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '');

    // Answered in its terminal; the list's answer that comes after it is refused, nothing typed.
    const first = await asked('Run: make test');
    await engine.write({ id: session.id, text: 'y\r' });
    await expect(engine.write({ id: session.id, text: 'y\r', ifAsking: first.since })).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/no longer asks the question this answers \(it was answered.*nothing was typed/) });
    const second = await asked('Run: rm -rf build');
    expect(second.since).not.toBe(first.since);
    expect(read()).toBe('y\n');

    // Another question in its place, not yet seen by a look: the answer to the one before is refused.
    fs.writeFileSync(swap, '');
    await waitFor(async () => (await engine.screen({ id: session.id })).text.includes('rm -rf /'), 'the third question');
    await expect(engine.write({ id: session.id, text: 'y\r', ifAsking: second.since })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('its screen shows another now') });
    // The next look makes it a question of its own, which its answer answers.
    const third = await asked('Run: rm -rf /');
    expect(third.since).not.toBe(second.since);
    await engine.write({ id: session.id, text: 'n\r', ifAsking: third.since });
    await waitFor(() => read() === 'y\nn\n', 'the answer read');
  });

  it("needs you on a screen to set up (trust, sign-in) too, marked so, and on an approval prompt after it not so", async () => {
    rig.fake('setter', '#!/bin/bash\necho "Trust this folder?"\nread -r trust\nprintf "\\033[2J\\033[H"\necho "Do you want to proceed?"\nread -r answer\nexec sleep 600\n');
    rig.writeCatalogue(`[cli.setter]\ncommand = "setter"\nattention = ['Do you want to proceed\\?']\nsetup = ['Trust this folder\\?']\nanswers = { approve = "1", deny = "\\u001b" }\n`);
    const engine = await rig.open({ attentionIntervalMs: 100 });
    const session = await engine.createSession({ cli: 'setter', cwd: rig.home, name: 'sets up' });
    const needs = async () => (await engine.getSession({ id: session.id })).needsYou;
    expect(await waitFor(needs, 'the trust question to be seen')).toEqual({ source: 'screen', since: expect.any(Number), detail: 'Trust this folder?', setup: true });
    await engine.write({ id: session.id, text: 'y\r' });
    expect(await waitFor(async () => (await needs())?.detail === 'Do you want to proceed?' && needs(), 'the approval prompt')).toEqual({ source: 'screen', since: expect.any(Number), detail: 'Do you want to proceed?' });
  });
});
