// `corral mcp` in a real MCP dialogue (initialize, tools/list, tools/call) over stdio,
// against a real daemon, with a read-only token.

import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './support/wait';
import { serveRig, type Served } from './support/serveRig';
import { CORRAL } from './support/serve';

let s: Served;
let token: string;
let client: Client;
let stderr = '';
let id: string;

beforeAll(async () => {
  s = await serveRig();
  token = s.cli(['token', 'create', 'an-agent', '--read-only']).stdout.trim();
  id = (await s.api('POST', '/api/sessions', { body: { cli: 'faker', cwd: s.rig.home, name: 'observed' } })).body.id;
  await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('FRESH START'), 'the agent');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CORRAL, 'mcp'],
    env: { ...(s.env as Record<string, string>), CORRAL_TOKEN: token },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => (stderr += d));
  client = new Client({ name: 'corral-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  await s.rig.cleanup();
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { type: string; text: string }[])[0]!.text;

describe('the MCP server', () => {
  it('lists its six read-only tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['conversation', 'get_session', 'list_sessions', 'preview_pane', 'usage', 'wait']);
  });

  it('usage answers with the report of what sessions cost', async () => {
    const result = await client.callTool({ name: 'usage', arguments: { since_days: 1 } });
    const report = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(report).toMatchObject({ sessions: expect.any(Array), byProject: expect.any(Array), byDay: expect.any(Array), quota: expect.any(Object), total: expect.objectContaining({ key: 'total' }) });
  });

  it('list_sessions and get_session describe the sessions', async () => {
    const sessions = JSON.parse(text(await client.callTool({ name: 'list_sessions', arguments: {} })));
    expect(sessions.map((x: { id: string }) => x.id)).toContain(id);
    const one = JSON.parse(text(await client.callTool({ name: 'get_session', arguments: { id } })));
    expect(one).toMatchObject({ id, name: 'observed', state: 'running' });
    expect(one.events.map((e: { kind: string }) => e.kind)).toEqual(['created', 'started']);
  });

  it('preview_pane gives the last 8 lines by default, caps at 200, and rejects 0', async () => {
    for (let i = 1; i <= 12; i++) await s.api('POST', `/api/sessions/${id}/input`, { body: { text: `line ${i}\r` } });
    await waitFor(async () => (await s.api('GET', `/api/sessions/${id}/screen`)).body.text.includes('echo: line 12'), 'the lines');
    const preview = text(await client.callTool({ name: 'preview_pane', arguments: { id } }));
    expect(preview.split('\n')).toHaveLength(8);
    expect(preview).toContain('echo: line 12');
    const zero = await client.callTool({ name: 'preview_pane', arguments: { id, lines: 0 } });
    expect(zero.isError).toBe(true);
    const tooMany = await client.callTool({ name: 'preview_pane', arguments: { id, lines: 201 } });
    expect(tooMany.isError).toBe(true);
  });

  it('conversation gives the recent output as text', async () => {
    const conversation = text(await client.callTool({ name: 'conversation', arguments: { id } }));
    expect(conversation).toContain('FRESH START');
    expect(conversation).toContain('echo: line 1\n');
  });

  it('wait returns when the screen matches, or the state changes, and gives up at its timeout', async () => {
    const waiting = client.callTool({ name: 'wait', arguments: { id, pattern: 'echo: the signal', timeout_s: 20 } });
    await s.api('POST', `/api/sessions/${id}/input`, { body: { text: 'the signal\r' } });
    expect(JSON.parse(text(await waiting))).toMatchObject({ matched: true, session: { id } });

    const stopping = client.callTool({ name: 'wait', arguments: { id, timeout_s: 20 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await s.api('POST', `/api/sessions/${id}/stop`);
    expect(JSON.parse(text(await stopping))).toMatchObject({ matched: true, session: { state: 'stopped' } });

    const started = Date.now();
    const late = JSON.parse(text(await client.callTool({ name: 'wait', arguments: { id, states: ['running'], timeout_s: 0.5 } })));
    expect(late.matched).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await client.callTool({ name: 'wait', arguments: { id, timeout_s: 301 } })).isError).toBe(true);
  });

  it('a missing session is a tool error, not an empty result', async () => {
    const result = await client.callTool({ name: 'get_session', arguments: { id: '00000000-0000-0000-0000-000000000000' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('no session with id "00000000-0000-0000-0000-000000000000"');
    expect((await client.callTool({ name: 'preview_pane', arguments: { id: 'nope' } })).isError).toBe(true);
  });

  it('never echoes its token', () => {
    expect(stderr).not.toContain(token);
  });
});

describe('without a token', () => {
  it('refuses to start, and says how to make one', () => {
    let result: { status: number; stderr: string; stdout: string };
    try {
      execFileSync(process.execPath, [CORRAL, 'mcp'], { env: { ...s.env, CORRAL_TOKEN: '' }, encoding: 'utf8', stdio: 'pipe', input: '' });
      result = { status: 0, stderr: '', stdout: '' };
    } catch (err) {
      result = err as { status: number; stderr: string; stdout: string };
    }
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('corral mcp: CORRAL_TOKEN is not set. Make a token with `corral token create NAME --read-only` and set CORRAL_TOKEN to it.\n');
    expect(result.stdout).toBe('');
  });
});
