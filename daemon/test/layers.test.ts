// The layer rules are lint errors, so a wrong import fails `npm test`. Each rule, proven.

import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function errors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  it('daemon/ never imports electron', async () => {
    expect(await errors('daemon/x.ts', "import { app } from 'electron';\nexport const a = app;\n")).toEqual([
      "'electron' import is restricted from being used. daemon/ is plain Node: it never imports electron.",
    ]);
    expect(await errors('daemon/x.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toEqual([]);
    expect(await errors('daemon/transports/x.ts', "import { ipcMain } from 'electron/main';\nexport const a = ipcMain;\n")).toHaveLength(1);
  });

  it('daemon/ never imports the app above it: renderer/, main/, preload/', async () => {
    expect(await errors('daemon/x.ts', "import { App } from '../renderer/components/App';\nexport const a = App;\n")).toHaveLength(1);
    expect(await errors('daemon/transports/http/x.ts', "import { trayMenu } from '../../../main/trayMenu';\nexport const a = trayMenu;\n")).toHaveLength(1);
    expect(await errors('daemon/cli/x.ts', "import '../../preload/index';\n")).toHaveLength(1);
    // Its own files of those names are its own.
    expect(await errors('daemon/cli/x.ts', "import { main } from './main';\nexport const a = main;\n")).toEqual([]);
  });

  it("each folder of daemon/ uses only the folders below it", async () => {
    // A backend runs processes: it knows nothing of the engine, the store or the transports.
    expect(await errors('daemon/backends/x.ts', "import { Engine } from '../engine/engine';\nexport type A = Engine;\n")).toEqual([
      "'../engine/engine' import is restricted from being used by a pattern. daemon/backends/ may use contract/, home/, util/ of daemon/: not engine/ (see eslint.config.js).",
    ]);
    expect(await errors('daemon/backends/x.ts', "import type { ErrorShape } from '../contract/errors';\nexport type A = ErrorShape;\n")).toEqual([]);
    expect(await errors('daemon/backends/x.ts', "import { KeyedQueue } from '../util/keyedQueue';\nexport const a = KeyedQueue;\n")).toEqual([]);
    expect(await errors('daemon/util/x.ts', "import { Store } from '../store/store';\nexport const a = Store;\n")).toHaveLength(1);
    expect(await errors('daemon/store/x.ts', "import { Tokens } from '../auth/tokens';\nexport const a = Tokens;\n")).toHaveLength(1);
    expect(await errors('daemon/catalogue/x.ts', "import { Store } from '../store/store';\nexport const a = Store;\n")).toHaveLength(1);
    expect(await errors('daemon/streams/x.ts', "import { Engine } from '../engine/engine';\nexport const a = Engine;\n")).toHaveLength(1);
    expect(await errors('daemon/files/x.ts', "import { Tokens } from '../auth/tokens';\nexport const a = Tokens;\n")).toHaveLength(1);
    expect(await errors('daemon/home/x.ts', "import { Store } from '../store/store';\nexport const a = Store;\n")).toHaveLength(1);
    expect(await errors('daemon/auth/x.ts', "import { Engine } from '../engine/engine';\nexport const a = Engine;\n")).toHaveLength(1);
    // Usage reads the CLIs' files: it knows nothing of the engine or the catalogue, and the engine may use it.
    expect(await errors('daemon/usage/x.ts', "import { Engine } from '../engine/engine';\nexport type A = Engine;\n")).toHaveLength(1);
    expect(await errors('daemon/usage/x.ts', "import { loadCatalogue } from '../catalogue/catalogue';\nexport const a = loadCatalogue;\n")).toHaveLength(1);
    expect(await errors('daemon/usage/x.ts', "import { defaultHome } from '../home/home';\nexport const a = defaultHome;\n")).toEqual([]);
    expect(await errors('daemon/engine/x.ts', "import { UsageBook } from '../usage/usageBook';\nexport const a = UsageBook;\n")).toEqual([]);
    expect(await errors('daemon/store/x.ts', "import { UsageBook } from '../usage/usageBook';\nexport const a = UsageBook;\n")).toHaveLength(1);
    // The engine is below its transports, and the transports below the command line.
    expect(await errors('daemon/engine/x.ts', "import { startServer } from '../transports/http/httpServer';\nexport const a = startServer;\n")).toHaveLength(1);
    expect(await errors('daemon/engine/x.ts', "import { Store } from '../store/store';\nexport const a = Store;\n")).toEqual([]);
    expect(await errors('daemon/transports/http/x.ts', "import { main } from '../../cli/main';\nexport const a = main;\n")).toHaveLength(1);
    expect(await errors('daemon/transports/http/x.ts', "import { Engine } from '../../engine/engine';\nexport type A = Engine;\n")).toEqual([]);
    expect(await errors('daemon/cli/x.ts', "import { Engine } from '../engine/engine';\nexport type A = Engine;\n")).toEqual([]);
    // Code never imports its tests' support.
    expect(await errors('daemon/engine/x.ts', "import { makeRig } from '../test/rig';\nexport const a = makeRig;\n")).toHaveLength(1);
  });

  it('the contract imports no Node built-in and nothing outside daemon/contract/', async () => {
    expect(await errors('daemon/contract/x.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(await errors('daemon/contract/x.ts', "import { Engine } from '../engine/engine';\nexport type A = Engine;\n")).toHaveLength(1);
    expect(await errors('daemon/contract/x.ts', "import type { SessionView } from './session';\nexport type A = SessionView;\n")).toEqual([]);
    expect(await errors('daemon/contract/x.ts', "import WebSocket from 'ws';\nexport const a = WebSocket;\n")).toHaveLength(1);
  });

  it('renderer/ imports no Node built-in and no daemon code outside the contract', async () => {
    expect(await errors('renderer/x.ts', "import fs from 'fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(await errors('renderer/x.ts', "import path from 'node:path';\nexport const a = path;\n")).toHaveLength(1);
    expect(await errors('renderer/x.ts', "import { Engine } from '../daemon/engine';\nexport const a = Engine;\n")).toHaveLength(1);
    expect(await errors('renderer/x.ts', "import type { SessionView } from '../daemon/contract/session';\nexport type A = SessionView;\n")).toEqual([]);
  });

  it('renderer/ imports no Node-only package (its types would bring Node into the web build), nor main/ or preload/', async () => {
    for (const pkg of ['ws', 'node-pty', 'better-sqlite3', '@xterm/headless']) {
      expect(await errors('renderer/x.ts', `import x from '${pkg}';\nexport const a = x;\n`), pkg).toHaveLength(1);
    }
    expect(await errors('renderer/components/x.tsx', "import { CHANNEL } from '../../main/ipc';\nexport const a = CHANNEL;\n")).toHaveLength(1);
    expect(await errors('renderer/x.ts', "import { Terminal } from '@xterm/xterm';\nexport const a = Terminal;\n")).toEqual([]);
  });

  it('preload/ exposes the contract only', async () => {
    expect(await errors('preload/x.ts', "import { Engine } from '../daemon/engine';\nexport const a = Engine;\n")).toHaveLength(1);
    expect(await errors('preload/x.ts', "import type { Contract } from '../daemon/contract/contract';\nexport type A = Contract;\n")).toEqual([]);
    expect(await errors('preload/x.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(await errors('preload/x.ts', "import { CHANNEL } from '../main/ipc';\nexport const a = CHANNEL;\n")).toHaveLength(1);
    expect(await errors('preload/x.ts', "import { contextBridge } from 'electron';\nexport const a = contextBridge;\n")).toEqual([]);
  });

  it('main/ reaches the page through IPC and the preload, never by import', async () => {
    expect(await errors('main/x.ts', "import { App } from '../renderer/components/App';\nexport const a = App;\n")).toHaveLength(1);
    expect(await errors('main/x.ts', "import '../preload/index';\n")).toHaveLength(1);
    expect(await errors('main/x.ts', "import { Engine } from '../daemon/engine';\nexport const a = Engine;\n")).toEqual([]);
  });
});
