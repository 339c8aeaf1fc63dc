// `corral mcp`: a read-only MCP server on stdio, so another agent can see what Corral's
// sessions are doing. It talks to the running daemon with CORRAL_TOKEN (read-only is enough).

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import type { Contract } from '../contract/contract';
import { connect, daemonApi } from './client';
import { ClientError } from './clientErrors';
import { defaultHome } from '../home/home';

export const PREVIEW_DEFAULT = 8;
export const PREVIEW_MAX = 200;
export const WAIT_MAX_S = 300;

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

export async function runMcp(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (!env.CORRAL_TOKEN) {
    process.stderr.write('corral mcp: CORRAL_TOKEN is not set. Make a token with `corral token create NAME --read-only` and set CORRAL_TOKEN to it.\n');
    return 1;
  }
  const api = daemonApi(connect(defaultHome(env), env));
  const server = new McpServer({ name: 'corral', version: '0.1.0' });

  server.registerTool(
    'list_sessions',
    { description: "Every Corral session: id, name, CLI, folder, state, whether it can resume.", inputSchema: {} },
    () => answer(async () => (await api.listSessions()).sessions),
  );
  server.registerTool(
    'get_session',
    { description: 'One session by id, with its recent events.', inputSchema: { id: z.string().describe('the session id') } },
    ({ id }) =>
      answer(async () => ({
        ...(await api.getSession({ id })),
        events: (await api.events({ id })).events.slice(-20),
      })),
  );
  server.registerTool(
    'usage',
    {
      description: "What each session has cost, read from the CLIs' own transcripts: tokens, estimated cost, context fill, per project and per day since `since_days` days ago (default 7), and quota (Codex's rate limits, Claude's 5-hour block).",
      inputSchema: { since_days: z.number().int().min(0).max(3650).optional() },
    },
    ({ since_days }) => answer(async () => api.usage({ since: Date.now() - (since_days ?? 7) * 86_400_000 })),
  );
  server.registerTool(
    'preview_pane',
    {
      description: `The last lines of a session's terminal as plain text (default ${PREVIEW_DEFAULT}, at most ${PREVIEW_MAX}).`,
      inputSchema: { id: z.string(), lines: z.number().int().min(1).max(PREVIEW_MAX).optional() },
    },
    ({ id, lines }) => answer(async () => (await screen(api, id, lines ?? PREVIEW_DEFAULT)).text),
  );
  server.registerTool(
    'conversation',
    {
      description: "The session's recent output as plain text: its terminal history (or, once stopped, what it left).",
      inputSchema: { id: z.string(), lines: z.number().int().min(1).max(10_000).optional() },
    },
    ({ id, lines }) => answer(async () => (await screen(api, id, lines ?? 2_000)).text),
  );
  server.registerTool(
    'wait',
    {
      description: `Waits until a session's state changes (or becomes one of "states"), or its screen matches "pattern" (a regular expression); at most ${WAIT_MAX_S} s.`,
      inputSchema: {
        id: z.string(),
        states: z.array(z.enum(['stopped', 'starting', 'resuming', 'running', 'exited'])).optional(),
        pattern: z.string().optional(),
        timeout_s: z.number().min(0).max(WAIT_MAX_S).optional(),
      },
    },
    ({ id, states, pattern, timeout_s }) =>
      answer(async () => {
        let regex: RegExp | null = null;
        if (pattern !== undefined) {
          try {
            regex = new RegExp(pattern, 'm');
          } catch (err) {
            throw new ClientError(`pattern is not a valid regular expression: ${(err as Error).message}`, 400);
          }
        }
        const first = await api.getSession({ id });
        const deadline = Date.now() + (timeout_s ?? 60) * 1000;
        for (;;) {
          const session = await api.getSession({ id });
          const stateHit = states ? states.includes(session.state) : !regex && session.state !== first.state;
          const text = regex ? (await screen(api, id, 200)).text : '';
          if (stateHit || (regex && regex.test(text))) return { matched: true, session, ...(regex ? { screen: text.split('\n').slice(-20).join('\n') } : {}) };
          if (Date.now() >= deadline) return { matched: false, session };
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }),
  );

  await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => process.stdin.once('close', resolve));
  await server.close();
  return 0;
}

function screen(api: Contract, id: string, lines: number): Promise<{ text: string }> {
  return api.screen({ id, lines });
}

/** A tool's answer; a refusal (unknown session, daemon gone) is a tool error, never an empty result. */
async function answer(work: () => Promise<unknown>): Promise<ToolResult> {
  try {
    const value = await work();
    return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] };
  } catch (err) {
    if (err instanceof ClientError || (err as Error).name === 'NoDaemonError' || err instanceof Error) {
      return { content: [{ type: 'text', text: (err as Error).message }], isError: true };
    }
    throw err;
  }
}
