// `corral token create|list|revoke`: straight on the home's database, daemon or not.

import fs from 'node:fs';
import path from 'node:path';
import { Store } from '../store/store';
import { Tokens } from '../auth/tokens';
import { terminalSafe } from './terminalText';

export async function tokenCommand(
  positionals: string[],
  options: { readOnly: boolean; home: string },
  UsageError: new (message: string) => Error,
): Promise<number> {
  const [action, arg, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected ${extra.join(' ')}`);
  fs.mkdirSync(options.home, { recursive: true, mode: 0o700 });
  const store = Store.open(path.join(options.home, 'corral.db'));
  try {
    const tokens = new Tokens(store);
    switch (action) {
      case 'create': {
        const name = arg?.trim();
        if (!name) throw new UsageError('a NAME is needed');
        const { secret, info } = tokens.create(name, { readOnly: options.readOnly });
        process.stderr.write(`made ${info.scope === 'read' ? 'a read-only' : 'a'} token "${terminalSafe(info.name, { lines: false })}" (${info.id}); it is shown once, here:\n`);
        process.stdout.write(`${secret}\n`);
        return 0;
      }
      case 'list': {
        const rows = tokens.list();
        if (rows.length === 0) process.stdout.write('no tokens\n');
        for (const t of rows) {
          const used = t.lastUsedAt ? `last used ${new Date(t.lastUsedAt).toISOString()}` : 'never used';
          process.stdout.write(`${t.id}  ${t.scope === 'read' ? 'read-only' : 'read-write'}  ${terminalSafe(t.name, { lines: false })}  (made ${new Date(t.createdAt).toISOString()}, ${used})\n`);
        }
        return 0;
      }
      case 'revoke': {
        if (!arg) throw new UsageError('an ID is needed (see corral token list)');
        if (!tokens.revoke(arg)) {
          process.stderr.write(`corral token: no token with id ${terminalSafe(JSON.stringify(arg))}\n`);
          return 1;
        }
        process.stdout.write(`revoked ${arg}\n`);
        return 0;
      }
      default:
        throw new UsageError(action ? `unknown action "${action}"` : 'an action is needed: create, list or revoke');
    }
  } finally {
    store.close();
  }
}
