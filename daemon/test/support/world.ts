// A throwaway world for one test, browser test or benchmark: a temp folder with a home, a bin of
// fake CLIs and their catalogue, a private tmux socket name, and the environment that puts the
// fakes first on PATH. Nothing here can touch a real home, tmux server or agent.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAKE_PROGRAMS, fakeCatalogue, type FakeCli, type FakePaths, type FakeProgram } from './fakeClis';
import { killTmux } from './tmux';

export interface World extends FakePaths {
  /** The temp folder everything else is in. */
  root: string;
  home: string;
  bin: string;
  socket: string;
  /** This process's environment with the world's bin first on PATH. */
  env: NodeJS.ProcessEnv;
  launches(): string[];
  addConversation(key: string): void;
  writeCatalogue(toml: string): void;
  /** Writes an executable into the world's bin; returns its path. */
  fake(name: string, script: string): string;
  /** Ends the world's tmux server and removes the temp folder. */
  cleanup(): void;
}

/**
 * A new world named `kind` (its temp folder is corral-<kind>-…, its tmux socket
 * corral-<kind>-<pid>-…), with the given fake programs in its bin and the given fake CLIs as
 * its home's catalogue.
 */
export function makeWorld(kind: string, fakes: { programs: readonly FakeProgram[]; clis: readonly FakeCli[] }): World {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `corral-${kind}-`));
  const home = path.join(root, 'home');
  const bin = path.join(root, 'bin');
  const conversations = path.join(root, 'conversations');
  for (const dir of [home, bin, conversations]) fs.mkdirSync(dir);
  const argvLog = path.join(root, 'argv.log');
  fs.writeFileSync(argvLog, '');
  const socket = `corral-${kind}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  const world: World = {
    root,
    home,
    bin,
    socket,
    argvLog,
    inputLog: path.join(root, 'input.log'),
    conversations,
    // The agent CLIs' own folders are the world's: a daemon reading usage never reads a person's.
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex'), GEMINI_CLI_HOME: path.join(root, 'gemini') },
    launches: () => fs.readFileSync(argvLog, 'utf8').split('\n').filter(Boolean),
    addConversation: (key) => fs.writeFileSync(path.join(conversations, key), ''),
    writeCatalogue: (toml) => fs.writeFileSync(path.join(home, 'clis.toml'), toml),
    fake(name, script) {
      const file = path.join(bin, name);
      fs.writeFileSync(file, script, { mode: 0o755 });
      return file;
    },
    cleanup() {
      killTmux(socket);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  for (const name of fakes.programs) world.fake(name, FAKE_PROGRAMS[name](world));
  if (fakes.clis.length) world.writeCatalogue(fakeCatalogue(world, fakes.clis));
  return world;
}
