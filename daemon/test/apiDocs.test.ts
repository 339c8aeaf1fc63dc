// docs/api.md is held to the contract: every route and stream of the access table (made from the
// contract's table) has its row there with the same scope, and the page names no route that
// does not exist.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCESS } from '../auth/access';

const page = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
/** Table rows of the page that name a route: "| `VERB /path…` … | scope | …". */
const rows = [...page.matchAll(/^\| `((?:GET|POST|PATCH|DELETE|ANY|WS) \/[^`?[\s]*(?: (?:input|resize))?)[^|]*\| ([\w-]+) \|/gm)].map((m) => ({ endpoint: m[1]!, scope: m[2]! }));
const asDocumented = (endpoint: string) => endpoint.replace(/:(\w+)/g, '{$1}');

describe('docs/api.md', () => {
  it('has a row for every route and stream, with the scope the access table gives it', () => {
    const documented = new Map(rows.map((row) => [row.endpoint, row.scope]));
    const missing = Object.keys(ACCESS).filter((endpoint) => !documented.has(asDocumented(endpoint)));
    expect(missing).toEqual([]);
    const wrong = Object.entries(ACCESS).filter(([endpoint, need]) => documented.get(asDocumented(endpoint)) !== need);
    expect(wrong).toEqual([]);
  });

  it('names no route the server does not have', () => {
    const real = new Set(Object.keys(ACCESS).map(asDocumented));
    expect(rows.filter((row) => !real.has(row.endpoint))).toEqual([]);
  });
});
