import type { ConnectionMode } from '../connection/live-connection';
import { WINDOW_CHOICES_MS } from '../state/preferences';

/** "Socket" / "Serverless" as a radio group: arrow keys and screen readers work without extra code. */
export function createModeSwitch(initial: ConnectionMode, onChange: (mode: ConnectionMode) => void): HTMLElement {
  const fieldset = document.createElement('fieldset');
  fieldset.className = 'segmented';
  fieldset.innerHTML = `<legend class="visually-hidden">Connection mode</legend>
    <label><input type="radio" name="mode" value="socket"><span>Socket</span></label>
    <label><input type="radio" name="mode" value="serverless"><span>Serverless</span></label>`;
  for (const input of fieldset.querySelectorAll('input')) {
    input.checked = input.value === initial;
    input.addEventListener('change', () => input.checked && onChange(input.value as ConnectionMode));
  }
  return fieldset;
}

export function createWindowSelect(initialMs: number, onChange: (ms: number) => void): HTMLElement {
  const label = document.createElement('label');
  label.className = 'window-select';
  label.innerHTML = '<span>Window</span><select></select>';
  const select = label.querySelector('select') as HTMLSelectElement;
  for (const ms of WINDOW_CHOICES_MS) select.add(new Option(windowLabel(ms), String(ms), false, ms === initialMs));
  select.addEventListener('change', () => onChange(Number(select.value)));
  return label;
}

/** 1 min, 15 min, 1 h, 24 h, 7 d. */
export function windowLabel(ms: number): string {
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  if (ms <= 86_400_000) return `${ms / 3_600_000} h`;
  return `${ms / 86_400_000} d`;
}
