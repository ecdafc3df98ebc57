/**
 * Read-only virtual documents on the `skewlsp-preview` scheme.
 *
 * The loop preview diff needs two documents that exist only in memory (the
 * original loop and its rewrite), and explanations are shown the same way so
 * that closing them never asks "save changes?". Each document gets a fresh
 * URI, so VS Code never shows a stale cached copy, and the file name keeps
 * the right extension (`.py`, `.md`) for syntax highlighting.
 */
import * as vscode from 'vscode';
import { PREVIEW_SCHEME } from './constants';

/** Enough for several open diffs; older documents are forgotten so memory stays bounded. */
const DEFAULT_CAPACITY = 64;

export class PreviewDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  private nextId = 1;

  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly capacity: number = DEFAULT_CAPACITY) {}

  /**
   * Stores `content` and returns the URI that shows it: `skewlsp-preview:/<id>/<fileName>`.
   * `fileName` is a plain name such as `kernel.original.py`; path separators are replaced.
   */
  add(fileName: string, content: string): vscode.Uri {
    const safeName = fileName.replace(/[/\\]/g, '_') || 'untitled';
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${this.nextId++}/${safeName}` });
    this.contents.set(uri.toString(), content);
    while (this.contents.size > this.capacity) {
      const oldest = this.contents.keys().next().value as string;
      this.contents.delete(oldest);
    }
    this.changeEmitter.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '# skewlsp: this preview has expired; run the command again.\n';
  }

  /** Number of documents currently held (for tests and diagnostics). */
  get size(): number {
    return this.contents.size;
  }

  dispose(): void {
    this.contents.clear();
    this.changeEmitter.dispose();
  }
}
