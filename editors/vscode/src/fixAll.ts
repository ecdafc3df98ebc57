/**
 * "skewlsp: Fix All Auto-fixable Problems": runs the server's Fix all code action
 * (`source.fixAll.skewlint`) on the active file, as ruff-vscode's "Fix all
 * auto-fixable problems" does for `source.fixAll.ruff`.
 *
 * The server computes the fixes (the ones `skewlint --fix` applies); VS Code's own
 * source-action command asks for them and applies the edit. The same kind is what
 * `"editor.codeActionsOnSave": {"source.fixAll.skewlint": "explicit"}` runs on save.
 */
import { FIX_ALL_KIND } from './constants';

/** The built-in command that requests and applies a source action of a kind. */
export const SOURCE_ACTION_COMMAND = 'editor.action.sourceAction';

export interface FixAllDependencies {
  /** Resolves once the server runs (false: it cannot; the user has been told why). */
  serverRunning(): Promise<boolean>;
  executeCommand(command: string, ...args: unknown[]): Promise<unknown>;
}

export async function fixAll(deps: FixAllDependencies): Promise<boolean> {
  if (!(await deps.serverRunning())) return false;
  await deps.executeCommand(SOURCE_ACTION_COMMAND, { kind: FIX_ALL_KIND, apply: 'first' });
  return true;
}
