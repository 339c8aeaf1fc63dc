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
  });

  it('the contract imports no Node built-in and nothing outside daemon/contract/', async () => {
    expect(await errors('daemon/contract/x.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(await errors('daemon/contract/x.ts', "import { Engine } from '../engine';\nexport type A = Engine;\n")).toHaveLength(1);
    expect(await errors('daemon/contract/x.ts', "import type { SessionView } from './session';\nexport type A = SessionView;\n")).toEqual([]);
  });

  it('renderer/ imports no Node built-in and no daemon code outside the contract', async () => {
    expect(await errors('renderer/x.ts', "import fs from 'fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(await errors('renderer/x.ts', "import path from 'node:path';\nexport const a = path;\n")).toHaveLength(1);
    expect(await errors('renderer/x.ts', "import { Engine } from '../daemon/engine';\nexport const a = Engine;\n")).toHaveLength(1);
    expect(await errors('renderer/x.ts', "import type { SessionView } from '../daemon/contract/session';\nexport type A = SessionView;\n")).toEqual([]);
  });

  it('preload/ exposes the contract only', async () => {
    expect(await errors('preload/x.ts', "import { Engine } from '../daemon/engine';\nexport const a = Engine;\n")).toHaveLength(1);
    expect(await errors('preload/x.ts', "import type { Contract } from '../daemon/contract/contract';\nexport type A = Contract;\n")).toEqual([]);
  });
});
