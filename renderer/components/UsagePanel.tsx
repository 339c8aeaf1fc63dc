import { useEffect, useState } from 'react';
import type { ClientApi } from '../../daemon/contract/contract';
import type { UsageReport } from '../../daemon/contract/usage';
import { errorOf } from '../lib/errors';
import { contextBar, costWords, lastDays, tokenWords, totalTokens } from '../lib/usage';
import { clock, visible } from '../lib/words';
import { useSessions } from '../state/sessions';
import { useUi } from '../state/ui';

const DAYS = 7;
const REFRESH_MS = 5_000;

/** What the sessions cost: totals, quota, the last 7 days, and each session and project. Read again every 5 s while open. */
export function UsagePanel({ api }: { api: ClientApi }) {
  const sessions = useSessions((s) => s.sessions);
  const [report, setReport] = useState<UsageReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    const since = () => {
      const d = new Date();
      d.setHours(0, 0, 0, 0);
      d.setDate(d.getDate() - (DAYS - 1));
      return d.getTime();
    };
    const read = () =>
      api.usage({ since: since() }).then(
        (r) => current && (setReport(r), setError(null)),
        (err) => current && setError(errorOf(err).message),
      );
    void read();
    const timer = setInterval(read, REFRESH_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [api]);
  const close = () => useUi.getState().open(null);
  const names = new Map(sessions.map((s) => [s.id, s.name]));
  const days = report ? lastDays(report.byDay, DAYS, report.at) : [];
  const most = Math.max(1, ...days.map((d) => (d.row ? totalTokens(d.row.tokens) : 0)));
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === 'Escape' && close()}>
      <section role="dialog" aria-modal="true" aria-labelledby="usage-title" className="dialog usage-panel">
        <h2 id="usage-title">Usage</h2>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        {!report && !error && <p className="hint">Reading the agents' transcripts…</p>}
        {report?.scanning && (
          <p className="hint" role="status">
            Reading transcripts: {report.scanning.filesDone} of {report.scanning.filesTotal} files ({tokenWords(report.scanning.bytesRead)}B of {tokenWords(report.scanning.bytesTotal)}B)
          </p>
        )}
        {report && report.total.calls === 0 && !report.scanning && (
          <p className="hint usage-empty" role="status">
            No usage in the last {DAYS} days. It is read from the transcripts Claude Code, Codex and Gemini CLI keep of their sessions&apos; calls: a session
            of another agent, or one not yet sent anything, has none to count.
          </p>
        )}
        {report && report.total.calls > 0 && (
          <>
            <p className="usage-total">
              Last {DAYS} days: <strong>{costWords(report.total.cost, report.total.unpricedModels.length > 0)}</strong>, {tokenWords(totalTokens(report.total.tokens))} tokens in{' '}
              {report.total.calls} {report.total.calls === 1 ? 'call' : 'calls'}
              {report.total.unpricedModels.length > 0 && <span className="hint"> (no price for {report.total.unpricedModels.map(visible).join(', ')})</span>}
            </p>
            {(report.quota.claude || report.quota.codex?.primary) && (
              <ul className="usage-quota">
                {report.quota.claude && (
                  <li>
                    Claude's 5-hour block: {tokenWords(totalTokens(report.quota.claude.tokens))} tokens, {costWords(report.quota.claude.cost, report.quota.claude.unpricedModels.length > 0)}; resets at{' '}
                    {clock(report.quota.claude.end)}
                  </li>
                )}
                {report.quota.codex?.primary && (
                  <li>
                    Codex's limits: {report.quota.codex.primary.usedPercent}% of its {report.quota.codex.primary.windowMinutes ?? '?'}-minute window
                    {report.quota.codex.secondary && `, ${report.quota.codex.secondary.usedPercent}% of its ${report.quota.codex.secondary.windowMinutes ?? '?'}-minute one`}
                  </li>
                )}
              </ul>
            )}
            <figure className="usage-chart" aria-label={`Tokens per day, the last ${DAYS} days`}>
              {days.map(({ day, row }) => (
                <div key={day} className="usage-day" title={`${day}: ${row ? `${tokenWords(totalTokens(row.tokens))} tokens, ${costWords(row.cost, row.unpricedModels.length > 0)}` : 'nothing'}`}>
                  <span className="usage-bar" style={{ height: `${row ? Math.max(2, (totalTokens(row.tokens) / most) * 100) : 0}%` }} />
                  <span className="usage-day-label">{day.slice(5)}</span>
                </div>
              ))}
            </figure>
            <table className="usage-table">
              <caption>By session</caption>
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col">Models</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Cost</th>
                  <th scope="col">Context</th>
                  <th scope="col">Last hour</th>
                </tr>
              </thead>
              <tbody>
                {report.sessions
                  .filter((u) => u.readable && u.calls > 0)
                  .map((u) => {
                    const bar = contextBar(u.context?.fill ?? null);
                    return (
                      <tr key={u.id}>
                        <td>{visible(names.get(u.id) ?? u.id.slice(0, 8))}</td>
                        <td>{visible(u.models.join(', ') || u.cli)}</td>
                        <td>{tokenWords(totalTokens(u.tokens))}</td>
                        <td>{costWords(u.cost, u.unpricedModels.length > 0)}</td>
                        <td>{bar ? `${bar.percent}%` : '—'}</td>
                        <td>{tokenWords(totalTokens(u.lastHour))}</td>
                      </tr>
                    );
                  })}
              </tbody>
            </table>
            <table className="usage-table">
              <caption>By project</caption>
              <tbody>
                {report.byProject.map((p) => (
                  <tr key={p.key}>
                    <td title={visible(p.key)}>{visible(p.key.split('/').filter(Boolean).pop() ?? p.key)}</td>
                    <td>{tokenWords(totalTokens(p.tokens))}</td>
                    <td>{costWords(p.cost, p.unpricedModels.length > 0)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="hint">Estimated from list prices in the price table; read from the CLIs' own transcripts (docs/usage.md).</p>
          </>
        )}
        <div className="dialog-buttons">
          <button type="button" className="primary" onClick={close} autoFocus>
            Close
          </button>
        </div>
      </section>
    </div>
  );
}
