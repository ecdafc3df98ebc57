/**
 * Entry point: wires VS Code events and commands to the server controller and
 * the command flows. Deliberately thin; the behaviour lives in the modules it
 * calls, which are unit-tested without VS Code.
 */
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { COMMANDS, CONFIG_SECTION, DOCUMENT_SELECTOR, LAUNCH_SETTING_KEYS, PREVIEW_SCHEME } from './constants';
import { explainCode, fetchReasonCodes } from './explain';
import { fixAll } from './fixAll';
import { previewLoop } from './preview';
import { PreviewDocumentProvider } from './previewProvider';
import { onPythonInterpreterChanged } from './pythonExtension';
import { ServerController } from './serverController';
import { statusView, SYNTAX_ERROR_CODE, verdictCounts } from './status';

let controller: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('skewlsp');
  const documents = new PreviewDocumentProvider();
  const server = new ServerController(output);
  controller = server;
  const status = new LanguageStatus(server);

  context.subscriptions.push(
    output,
    documents,
    server,
    status,
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, documents),
    vscode.commands.registerCommand(COMMANDS.restartServer, () => server.restart()),
    vscode.commands.registerCommand(COMMANDS.showLogs, () => output.show(true)),
    vscode.commands.registerCommand(COMMANDS.previewLoop, async (uri?: unknown, position?: unknown) => {
      const client = await server.runningClient();
      if (!client) return;
      await previewLoop(
        {
          sendRequest: (method, params) => client.sendRequest(method, params),
          activeCursor: activeCursor,
          documents,
          showDiff: (left, right, title) =>
            Promise.resolve(vscode.commands.executeCommand('vscode.diff', left, right, title)),
          showInformation: (message) => void vscode.window.showInformationMessage(message),
          showError: (message) => void vscode.window.showErrorMessage(message),
        },
        uri,
        position,
      );
    }),
    vscode.commands.registerCommand(COMMANDS.explainCode, async (code?: unknown) => {
      const client = await server.runningClient();
      if (!client) return;
      await explainCode(
        {
          pickCode: async (entries, placeHolder) =>
            (await vscode.window.showQuickPick(entries, { placeHolder }))?.label,
          executeServerCommand: (command, args) =>
            client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }),
          showMarkdown: (codeName, markdown) => showMarkdown(documents, codeName, markdown),
          showInformation: (message) => void vscode.window.showInformationMessage(message),
          showError: (message) => void vscode.window.showErrorMessage(message),
        },
        code,
      );
    }),
    vscode.commands.registerCommand(COMMANDS.fixAll, () =>
      fixAll({
        serverRunning: async () => (await server.runningClient()) !== undefined,
        executeCommand: (command, ...args) => Promise.resolve(vscode.commands.executeCommand(command, ...args)),
      }),
    ),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // enable, path, interpreter, args, logLevel, logFile: a different process (or none).
      if (LAUNCH_SETTING_KEYS.some((key) => event.affectsConfiguration(`${CONFIG_SECTION}.${key}`))) {
        void server.restart();
      } else if (event.affectsConfiguration(CONFIG_SECTION)) {
        void server.sendConfiguration();
      }
    }),
    // Restricted settings (path, interpreter, args) from the workspace only count once it is trusted.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void server.restart()),
  );

  const interpreterWatch = await onPythonInterpreterChanged(() => {
    const source = server.serverSource;
    if (source !== 'skewlsp.path' && source !== 'skewlsp.interpreter') void server.restart();
  });
  if (interpreterWatch) context.subscriptions.push(interpreterWatch);

  // Not awaited: finding the server may probe Python; commands wait for it themselves.
  void server.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}

function activeCursor(): { uri: string; position: { line: number; character: number } } | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const { line, character } = editor.selection.active;
  return { uri: editor.document.uri.toString(), position: { line, character } };
}

/** Shows markdown rendered in a preview; falls back to the plain read-only document if the markdown extension is off. */
async function showMarkdown(documents: PreviewDocumentProvider, code: string, markdown: string): Promise<void> {
  const uri = documents.add(`${code}.md`, markdown);
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch {
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: true });
  }
}

/**
 * The language status item next to "Python" in the status bar: the server's state and the
 * active file's loops by verdict, counted from its skewlsp diagnostics with the verdicts the
 * server lists for each code.
 */
class LanguageStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private readonly subscriptions: vscode.Disposable[] = [];
  private verdictOf: Map<string, string> | undefined;

  constructor(private readonly server: ServerController) {
    this.item = vscode.languages.createLanguageStatusItem('skewlsp.status', DOCUMENT_SELECTOR);
    this.item.name = 'skewlsp';
    this.item.command = { title: 'Show Logs', command: COMMANDS.showLogs };
    this.subscriptions.push(
      server.onDidChangeState((state) => {
        if (state !== 'running') this.verdictOf = undefined;
        void this.refresh();
      }),
      vscode.languages.onDidChangeDiagnostics(() => void this.refresh()),
      vscode.window.onDidChangeActiveTextEditor(() => void this.refresh()),
    );
    void this.refresh();
  }

  private async refresh(): Promise<void> {
    const state = this.server.state;
    const editor = vscode.window.activeTextEditor;
    let counts: Map<string, number> | undefined;
    let syntaxError = false;
    if (state === 'running' && editor && editor.document.languageId === 'python') {
      const codes = vscode.languages
        .getDiagnostics(editor.document.uri)
        .filter((diagnostic) => diagnostic.source === 'skewlsp')
        .map((diagnostic) => diagnosticCode(diagnostic.code));
      syntaxError = codes.includes(SYNTAX_ERROR_CODE);
      counts = verdictCounts(codes, await this.verdicts());
    }
    const view = statusView(state, counts, syntaxError);
    this.item.text = view.text;
    this.item.detail = view.detail;
    this.item.severity = view.problem ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    this.item.busy = state === 'starting';
  }

  /** code -> verdict, from the server's `skewlsp.listCodes` (asked once per server start). */
  private async verdicts(): Promise<Map<string, string>> {
    if (this.verdictOf) return this.verdictOf;
    const client = await this.server.runningClient();
    if (!client) return new Map();
    try {
      const codes = await fetchReasonCodes({
        executeServerCommand: (command, args) =>
          client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }),
      });
      this.verdictOf = new Map(codes.map((entry) => [entry.code, entry.verdict]));
    } catch {
      this.verdictOf = new Map();
    }
    return this.verdictOf;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.item.dispose();
  }
}

function diagnosticCode(code: vscode.Diagnostic['code']): string {
  if (typeof code === 'object' && code !== null) return String(code.value);
  return String(code ?? '');
}
