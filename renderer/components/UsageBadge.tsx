import type { UsageBadge as Badge } from '../../daemon/contract/usage';
import { badgeWords, contextBar, costWords } from '../lib/usage';

/** A session's cost, with its context fill as a thin bar under it. */
export function UsageBadge({ usage }: { usage: Badge }) {
  const bar = contextBar(usage.contextFill);
  const words = badgeWords(usage);
  return (
    <span className="usage-badge" title={words} aria-label={words}>
      <span aria-hidden="true">{costWords(usage.cost, usage.partial)}</span>
      {bar && (
        <span className="context-bar" aria-hidden="true">
          <span className={`context-fill tone-${bar.tone}`} style={{ width: `${bar.percent}%` }} />
        </span>
      )}
    </span>
  );
}
