/**
 * "skewlsp: Preview Rewritten Loop": asks the server how the compiler pass
 * rewrites the `pl.pipeline` loop at a position and shows original vs
 * rewritten side by side.
 *
 * Runs from the command palette (active editor's cursor) or from the server's
 * code lens, which passes `(uri: string, position: {line, character})`.
 * Everything VS Code-specific comes in through `PreviewDependencies`.
 */
import type * as vscode from 'vscode';
import { PREVIEW_REQUEST } from './constants';
import type { PreviewDocumentProvider } from './previewProvider';

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** The server's answer to `skewlsp/preview`. */
export interface LoopPreview {
  range: LspRange;
  original: string;
  rewritten: string;
  /** A loop split across cube and vector cores: the other cores' copies (`""` or absent otherwise). */
  others?: string;
}

export interface PreviewRequestParams {
  textDocument: { uri: string };
  position: LspPosition;
}

export interface PreviewDependencies {
  sendRequest(method: string, params: PreviewRequestParams): Promise<unknown>;
  /** The active editor's document URI and cursor, if there is an editor. */
  activeCursor(): { uri: string; position: LspPosition } | undefined;
  documents: Pick<PreviewDocumentProvider, 'add'>;
  showDiff(left: vscode.Uri, right: vscode.Uri, title: string): Promise<unknown>;
  showInformation(message: string): void;
  showError(message: string): void;
}

export const NO_LOOP_MESSAGE = 'No pl.pipeline loop at the cursor';

/** What the command did, so callers and tests can tell the outcomes apart. */
export type PreviewOutcome = 'shown' | 'no-loop' | 'no-target' | 'failed';

export async function previewLoop(
  deps: PreviewDependencies,
  uriArgument?: unknown,
  positionArgument?: unknown,
): Promise<PreviewOutcome> {
  const target = previewTarget(deps, uriArgument, positionArgument);
  if (!target) {
    deps.showInformation('skewlsp: open a Python file and place the cursor on a pl.pipeline loop to preview it.');
    return 'no-target';
  }
  let answer: unknown;
  try {
    answer = await deps.sendRequest(PREVIEW_REQUEST, previewRequestParams(target.uri, target.position));
  } catch (error) {
    deps.showError(`skewlsp: could not preview the loop: ${errorMessage(error)}`);
    return 'failed';
  }
  if (answer === null || answer === undefined) {
    deps.showInformation(NO_LOOP_MESSAGE);
    return 'no-loop';
  }
  if (!isLoopPreview(answer)) {
    deps.showError('skewlsp: the server sent a preview this extension does not understand; see the output channel.');
    return 'failed';
  }
  const baseName = uriBaseName(target.uri);
  const stem = baseName.replace(/\.py$/, '');
  const left = deps.documents.add(`${stem}.original.py`, answer.original);
  const right = deps.documents.add(`${stem}.rewritten.py`, rewrittenSide(answer));
  await deps.showDiff(left, right, previewTitle(baseName, answer.range));
  return 'shown';
}

/**
 * The right side of the diff: the rewrite, then (for a loop split across cores) every other
 * core's copy, so no statement of the loop looks deleted.
 */
export function rewrittenSide(answer: LoopPreview): string {
  const others = typeof answer.others === 'string' ? answer.others : '';
  return others === '' ? answer.rewritten : `${answer.rewritten}${others}`;
}

/** The request params for `skewlsp/preview`: an LSP TextDocumentPositionParams. */
export function previewRequestParams(uri: string, position: LspPosition): PreviewRequestParams {
  return { textDocument: { uri }, position: { line: position.line, character: position.character } };
}

/** Diff editor title, e.g. `Loop preview: kernel.py:42 (original ↔ rewritten)` with a 1-based line. */
export function previewTitle(baseName: string, range: LspRange): string {
  return `Loop preview: ${baseName}:${range.start.line + 1} (original ↔ rewritten)`;
}

/** Last path segment of a URI string, decoded (`file:///a/my%20kernel.py` → `my kernel.py`). */
export function uriBaseName(uri: string): string {
  const withoutQuery = uri.replace(/[?#].*$/, '');
  const segment = withoutQuery.slice(withoutQuery.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment) || uri;
  } catch {
    return segment || uri;
  }
}

/**
 * Where to preview: explicit arguments (code lens) win; a URI without a
 * usable position falls back to the cursor when that document is active.
 */
function previewTarget(
  deps: PreviewDependencies,
  uriArgument: unknown,
  positionArgument: unknown,
): { uri: string; position: LspPosition } | undefined {
  const cursor = deps.activeCursor();
  const uri = uriString(uriArgument);
  if (uri === undefined) return cursor;
  if (isPosition(positionArgument)) return { uri, position: positionArgument };
  return cursor && cursor.uri === uri ? cursor : undefined;
}

/** Accepts a URI string (code lens arguments) or a `vscode.Uri` (menus pass one). */
function uriString(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (value && typeof value === 'object' && 'scheme' in value && typeof value.toString === 'function') {
    return value.toString();
  }
  return undefined;
}

function isPosition(value: unknown): value is LspPosition {
  const candidate = value as Partial<LspPosition> | undefined;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    Number.isInteger(candidate.line) &&
    Number.isInteger(candidate.character) &&
    (candidate.line as number) >= 0 &&
    (candidate.character as number) >= 0
  );
}

function isLoopPreview(value: unknown): value is LoopPreview {
  const candidate = value as Partial<LoopPreview>;
  return (
    typeof candidate === 'object' &&
    typeof candidate.original === 'string' &&
    typeof candidate.rewritten === 'string' &&
    typeof candidate.range === 'object' &&
    candidate.range !== null &&
    isPosition(candidate.range.start)
  );
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
