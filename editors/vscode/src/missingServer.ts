/**
 * The notification shown when no skewlsp server can be found.
 *
 * Failing to start must never be silent: the message says how to fix it, and
 * the buttons open the settings or the output channel, where every location
 * that was tried is listed.
 */
export const MISSING_SERVER_MESSAGE =
  'skewlsp: no server found. skewlsp is not on PyPI: install it into the Python environment VS Code uses from a checkout or a wheel built from one (`python -m pip install /path/to/skewlsp`), or set `skewlsp.interpreter` or `skewlsp.path`.';

export const OPEN_SETTINGS = 'Open Settings';
export const SHOW_OUTPUT = 'Show Logs';

export interface MissingServerDependencies {
  showError(message: string, ...actions: string[]): Promise<string | undefined>;
  openSettings(): Promise<unknown>;
  showOutput(): void;
  log(line: string): void;
}

/** Logs what was tried, shows the notification, and carries out the button the user chose. */
export async function reportMissingServer(deps: MissingServerDependencies, tried: readonly string[]): Promise<void> {
  deps.log('No skewlsp server found. Looked at:');
  for (const line of tried) deps.log(`  - ${line}`);
  deps.log(
    'Fix: in the Python environment VS Code uses, run `python -m pip install /path/to/skewlsp` (a checkout) ' +
      'or `python -m pip install /path/to/skewlsp-<version>-py3-none-any.whl` (a wheel built from one); ' +
      'or set `skewlsp.interpreter` to a Python that has skewlsp, or `skewlsp.path` to its `skewlsp` executable.',
  );
  const choice = await deps.showError(MISSING_SERVER_MESSAGE, OPEN_SETTINGS, SHOW_OUTPUT);
  if (choice === OPEN_SETTINGS) await deps.openSettings();
  else if (choice === SHOW_OUTPUT) deps.showOutput();
}
