import { FONT_MAX, FONT_MIN, useUi, type ThemeChoice } from '../state/ui';

const THEMES: { value: ThemeChoice; label: string }[] = [
  { value: 'system', label: 'As the system' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** Theme, terminal font and size: applied as they change, kept in this browser. */
export function SettingsDialog() {
  const theme = useUi((s) => s.theme);
  const fontFamily = useUi((s) => s.fontFamily);
  const fontSize = useUi((s) => s.fontSize);
  const ui = useUi.getState();
  const close = () => ui.open(null);
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === 'Escape' && close()}>
      <form role="dialog" aria-modal="true" aria-labelledby="settings-title" className="dialog" onSubmit={(e) => (e.preventDefault(), close())}>
        <h2 id="settings-title">Settings</h2>
        <fieldset>
          <legend>Theme</legend>
          {THEMES.map((t) => (
            <label key={t.value} className="cli-choice">
              <input type="radio" name="theme" value={t.value} checked={theme === t.value} onChange={() => ui.setTheme(t.value)} />
              {t.label}
            </label>
          ))}
        </fieldset>
        <label htmlFor="font-family">Terminal font</label>
        <input id="font-family" value={fontFamily} onChange={(e) => ui.setFontFamily(e.target.value)} placeholder="the system's monospace font" maxLength={80} autoFocus />
        <p className="hint">A font installed on this computer, by name (e.g. JetBrains Mono); the default stands in for one it does not have.</p>
        <label htmlFor="font-size">Terminal font size</label>
        <input id="font-size" type="number" min={FONT_MIN} max={FONT_MAX} value={fontSize} onChange={(e) => e.target.value !== '' && ui.setFontSize(Number(e.target.value))} />
        <p className="hint">Also Ctrl + and Ctrl − (Ctrl 0 for the default).</p>
        <div className="dialog-buttons">
          <button type="submit" className="primary">
            Done
          </button>
        </div>
      </form>
    </div>
  );
}
