// What a child starts with (DESIGN.md rule 7), and what a process leaves behind (receipts).

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../engine/engine';
import { RECEIPTS_PER_SESSION } from '../store/store';
import { makeRig, type Rig } from './support/rig';
import { waitFor } from './support/wait';

for (const backend of ['tmux', 'pty'] as const) {
  describe(`on the ${backend} backend`, () => {
    let rig: Rig;
    let engine: Engine;
    beforeEach(async () => {
      rig = await makeRig();
    });
    afterEach(async () => {
      await rig.cleanup();
    });

    it('a child gets a clean environment: no leaked agent, tmux, npm or Corral variables', async () => {
      const dump = path.join(rig.home, 'env.txt');
      rig.fake('envdump', `#!/bin/bash\nenv > '${dump}.tmp' && mv '${dump}.tmp' '${dump}'\nexec sleep 600\n`);
      rig.writeCatalogue('[cli.envdump]\ncommand = "envdump"\nenv = { FROM_CATALOGUE = "yes", TERM = "ignored-by-design" }\n');
      Object.assign(rig.env, {
        TMUX: '/tmp/tmux-1000/default,1,0',
        TMUX_PANE: '%3',
        CLAUDECODE: '1',
        CLAUDE_CODE_ENTRYPOINT: 'cli',
        CLAUDE_CODE_SESSION_ID: 'abc',
        CODEX_THREAD_ID: 'thread',
        CODEX_SANDBOX: 'seatbelt',
        GEMINI_CLI: '1',
        OPENCODE: '1',
        AGENT: '1',
        CORRAL_TOKEN: 'crl_secret_never_leaks',
        CORRAL_HOME: '/somewhere',
        ELECTRON_RUN_AS_NODE: '1',
        npm_config_prefix: '/nope',
        TERM: 'dumb',
        KEEP_ME: 'kept',
      });
      engine = await rig.open({ backend });
      await engine.createSession({ cli: 'envdump', cwd: rig.home, name: 'env' });
      const text: string = await waitFor(() => (fs.existsSync(dump) ? fs.readFileSync(dump, 'utf8') : ''), 'the environment dump');
      const env = Object.fromEntries(text.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      for (const leaked of [
        'TMUX', 'TMUX_PANE', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT',
        'CLAUDE_CODE_SESSION_ID', 'CODEX_THREAD_ID', 'CODEX_SANDBOX', 'GEMINI_CLI', 'OPENCODE', 'AGENT',
        'CORRAL_TOKEN', 'CORRAL_HOME', 'ELECTRON_RUN_AS_NODE', 'npm_config_prefix',
      ]) {
        expect(env, leaked).not.toHaveProperty(leaked);
      }
      expect(env.TERM).toBe('xterm-256color');
      expect(env.COLORTERM).toBe('truecolor');
      expect(env.KEEP_ME).toBe('kept');
      expect(env.FROM_CATALOGUE).toBe('yes');
      expect(env.PATH).toBe(rig.env.PATH);
      expect(env.HOME).toBe(process.env.HOME);
    });

    it('receipts survive a new engine, are bounded to 64 KiB and redact secrets', async () => {
      const secrets = [
        'sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFF',
        'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
        'AKIAIOSFODNN7EXAMPLE',
        'xoxb-123456789012-abcdefghij',
        'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload',
      ];
      rig.fake(
        'noisy',
        // The pause is an agent's: tmux 3.3 can drop the last few KiB of a process that exits
        // in the middle of a flood (docs/known-issues.md); agents finish speaking, then exit.
        `#!/bin/bash\nfor i in $(seq 1 2000); do echo "line $i of filler text that makes the output long"; done\nsleep 0.3\n` +
          secrets.map((s) => `echo '${s}'`).join('\n') +
          `\necho "THE LAST LINE"\nexit 5\n`,
      );
      rig.writeCatalogue('[cli.noisy]\ncommand = "noisy"\n');
      engine = await rig.open({ backend });
      const session = await engine.createSession({ cli: 'noisy', cwd: rig.home, name: 'noisy' });
      await waitFor(async () => (await engine.getSession({ id: session.id })).state === 'exited', 'the exit');
      await engine.close();

      const again = await rig.open({ backend });
      const receipt = (await again.receipt({ id: session.id })).receipt;
      expect(receipt?.exit.code).toBe(5);
      expect(Buffer.byteLength(receipt!.output, 'utf8')).toBeLessThanOrEqual(64 * 1024);
      expect(receipt!.output).toContain('THE LAST LINE');
      expect(receipt!.output).not.toContain('line 1 of filler'); // the head went, the tail stayed
      for (const secret of secrets) expect(receipt!.output).not.toContain(secret.split(' ').at(-1));
      expect(receipt!.output).toContain('sk-[redacted]');
      expect(receipt!.output).toContain('Bearer [redacted]');
    });
  });
}

describe('receipts', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await makeRig();
  });
  afterEach(async () => {
    await rig.cleanup();
  });

  it(`a session keeps at most ${RECEIPTS_PER_SESSION} receipts, the newest`, async () => {
    rig.fake('counter', `#!/bin/bash\nn=$(cat '${rig.home}/n' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '${rig.home}/n'\necho "run $n"\nexit 0\n`);
    rig.writeCatalogue('[cli.counter]\ncommand = "counter"\n');
    const engine = await rig.open({ backend: 'pty' });
    const session = await engine.createSession({ cli: 'counter', cwd: rig.home, name: 'runs' });
    const runs = RECEIPTS_PER_SESSION + 3;
    for (let run = 1; run <= runs; run++) {
      await waitFor(async () => (await engine.getSession({ id: session.id })).state === 'exited', `run ${run} to exit`);
      if (run < runs) await engine.startSession({ id: session.id });
    }
    const receipts = await engine.receipts({ id: session.id });
    expect(receipts).toHaveLength(RECEIPTS_PER_SESSION);
    expect(receipts[0]!.output).toContain(`run ${runs}`);
    expect(receipts.at(-1)!.output).toContain(`run ${runs - RECEIPTS_PER_SESSION + 1}`);
  });
});

describe('the tmux pane around an agent', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await makeRig();
  });
  afterEach(async () => {
    await rig.cleanup();
  });

  it('keeps the last words of an agent that prints and exits at once', async () => {
    // Many at once: the loss this guards against shows under load.
    rig.fake('blurt', '#!/bin/bash\nfor i in $(seq 1 200); do echo "line $i of what it had to say"; done\necho "LAST WORDS of $1"\nexit 2\n');
    rig.writeCatalogue('[cli.blurt]\ncommand = "blurt"\nargs = ["{name}"]\n');
    const engine = await rig.open();
    const ids: string[] = [];
    ids.push(...(await Promise.all(Array.from({ length: 16 }, (_, i) => engine.createSession({ cli: 'blurt', cwd: rig.home, name: `b${i}` })))).map((s) => s.id));
    for (const [i, id] of ids.entries()) {
      await waitFor(async () => (await engine.getSession({ id })).state === 'exited', `b${i} to exit`);
      const receipt = (await engine.receipt({ id })).receipt;
      expect(receipt?.exit.code).toBe(2);
      expect(receipt?.output, `b${i}`).toContain(`LAST WORDS of b${i}`);
    }
  });

  it('gives Ctrl-C to the agent and stays, and reports an agent killed by a signal as that signal', async () => {
    rig.fake('sturdy', '#!/bin/bash\ntrap \'echo "got INT"\' INT\necho ready\nwhile IFS= read -r line; do [ "$line" = die ] && kill -TERM $$; echo "echo: $line"; done\n');
    rig.writeCatalogue('[cli.sturdy]\ncommand = "sturdy"\n');
    const engine = await rig.open();
    const { id } = await engine.createSession({ cli: 'sturdy', cwd: rig.home, name: 'sturdy' });
    await waitFor(async () => (await engine.screen({ id })).text.includes('ready'), 'the agent');
    await engine.write({ id, text: '\u0003' });
    await waitFor(async () => (await engine.screen({ id })).text.includes('got INT'), 'the agent to get Ctrl-C');
    await engine.write({ id, text: 'still here\r' });
    await waitFor(async () => (await engine.screen({ id })).text.includes('echo: still here'), 'the agent to go on');
    expect((await engine.getSession({ id })).state).toBe('running');
    await engine.write({ id, text: 'die\r' });
    await waitFor(async () => (await engine.getSession({ id })).state === 'exited', 'the exit');
    expect((await engine.getSession({ id })).lastExit).toMatchObject({ code: null, signal: 'SIGTERM' });
  });
});
