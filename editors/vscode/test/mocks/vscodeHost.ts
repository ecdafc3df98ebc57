/**
 * A recording fake of the VS Code API for loading the real bundle
 * (dist/extension.js) in a test. The members the extension uses record their
 * calls; any other member (vscode-languageclient reads many enums and
 * classes at load time) is a harmless placeholder class.
 */
import Module from 'node:module';
import { Disposable, EventEmitter, Uri } from './vscode';

export interface RecordedHost {
  api: Record<string, unknown>;
  registeredCommands: Map<string, (...args: unknown[]) => unknown>;
  contentProviderSchemes: string[];
  errorMessages: Array<{ message: string; actions: string[] }>;
  executedCommands: Array<{ command: string; args: unknown[] }>;
  outputLines: string[];
  /** Language status items the extension created (their fields as last set). */
  statusItems: Array<Record<string, unknown>>;
  /** Resolves on the next error notification. */
  nextErrorMessage(): Promise<{ message: string; actions: string[] }>;
}

export function createRecordedHost(settings: Record<string, unknown> = {}): RecordedHost {
  const registeredCommands = new Map<string, (...args: unknown[]) => unknown>();
  const contentProviderSchemes: string[] = [];
  const errorMessages: Array<{ message: string; actions: string[] }> = [];
  const executedCommands: Array<{ command: string; args: unknown[] }> = [];
  const outputLines: string[] = [];
  const statusItems: Array<Record<string, unknown>> = [];
  let errorWaiters: Array<(entry: { message: string; actions: string[] }) => void> = [];
  const noEvent = () => new Disposable(() => undefined);

  const known: Record<string, unknown> = {
    Uri,
    EventEmitter,
    Disposable,
    window: {
      createOutputChannel: () => ({
        appendLine: (line: string) => outputLines.push(line),
        append: (text: string) => outputLines.push(text),
        show: () => undefined,
        dispose: () => undefined,
      }),
      showErrorMessage: async (message: string, ...actions: string[]) => {
        const entry = { message, actions };
        errorMessages.push(entry);
        const waiters = errorWaiters;
        errorWaiters = [];
        for (const waiter of waiters) waiter(entry);
        return undefined;
      },
      showInformationMessage: async () => undefined,
      activeTextEditor: undefined,
      onDidChangeActiveTextEditor: noEvent,
    },
    languages: {
      createLanguageStatusItem: (id: string, selector: unknown) => {
        const item: Record<string, unknown> = { id, selector, dispose: () => undefined };
        statusItems.push(item);
        return item;
      },
      onDidChangeDiagnostics: noEvent,
      getDiagnostics: () => [],
    },
    LanguageStatusSeverity: { Information: 0, Warning: 1, Error: 2 },
    workspace: {
      workspaceFolders: undefined,
      getConfiguration: () => ({ get: (key: string) => settings[key] }),
      registerTextDocumentContentProvider: (scheme: string) => {
        contentProviderSchemes.push(scheme);
        return noEvent();
      },
      onDidChangeConfiguration: noEvent,
      onDidGrantWorkspaceTrust: noEvent,
    },
    commands: {
      registerCommand: (command: string, callback: (...args: unknown[]) => unknown) => {
        registeredCommands.set(command, callback);
        return noEvent();
      },
      executeCommand: async (command: string, ...args: unknown[]) => {
        executedCommands.push({ command, args });
        return undefined;
      },
    },
    extensions: { getExtension: () => undefined },
  };

  const api = new Proxy(known, {
    get(target, property) {
      if (property in target) return target[property as string];
      if (property === '__esModule' || property === 'then') return undefined;
      // Placeholder for every enum or class vscode-languageclient touches at load time.
      return class Placeholder {};
    },
  });

  return {
    api,
    registeredCommands,
    contentProviderSchemes,
    errorMessages,
    executedCommands,
    outputLines,
    statusItems,
    nextErrorMessage: () => new Promise((resolve) => errorWaiters.push(resolve)),
  };
}

/** Loads a CommonJS file with `require('vscode')` answered by `api`; returns its exports. */
export function requireWithVscode(file: string, api: unknown): Record<string, unknown> {
  const moduleApi = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
    _cache: Record<string, unknown>;
  };
  const original = moduleApi._resolveFilename;
  const fakeId = '\0fake-vscode';
  moduleApi._cache[fakeId] = { id: fakeId, filename: fakeId, loaded: true, exports: api };
  moduleApi._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? fakeId : original.call(this, request, ...rest);
  };
  try {
    const resolved = require.resolve(file);
    delete moduleApi._cache[resolved];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading the CommonJS bundle under test is the point
    return require(resolved);
  } finally {
    moduleApi._resolveFilename = original;
  }
}
