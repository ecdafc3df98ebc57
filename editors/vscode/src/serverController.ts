/**
 * Owns the language client: finds the server, starts, stops and restarts it,
 * and keeps it told about setting changes.
 *
 * Start/stop/restart are queued one after another so a burst of setting
 * changes cannot start two servers. This is the only module that talks to
 * vscode-languageclient; the decisions it makes are in the pure modules.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  type ErrorHandler,
  LanguageClient,
  type LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  type ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import { CONFIG_SECTION, DOCUMENT_SELECTOR } from './constants';
import {
  answerConfigurationRequest,
  buildInitializationOptions,
  buildServerSettings,
  didChangeConfigurationParams,
  type ServerSettings,
} from './initOptions';
import { reportMissingServer, SHOW_OUTPUT } from './missingServer';
import { createNodeLookupHost } from './nodeLookupHost';
import { selectedPythonInterpreter } from './pythonExtension';
import { findServer, type ServerCommand, type ServerSource } from './serverLookup';
import { readSettings, serverLaunchArguments, type SkewlspSettings } from './settings';
import type { ServerState } from './status';

/** Restarts of a server that crashed after it ran, at most, within {@link RESTART_WINDOW_MS}
 * (what vscode-languageclient's own default allows). */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private runningServer: ServerCommand | undefined;
  private lastTried: string[] = [];
  private queue: Promise<void> = Promise.resolve();
  private currentState: ServerState = 'stopped';
  private readonly stateChanged = new vscode.EventEmitter<ServerState>();
  private crashTimes: number[] = []; // when the server last stopped on its own after it ran
  /** Fires whenever the server starts, stops, fails or is disabled. */
  readonly onDidChangeState = this.stateChanged.event;

  constructor(private readonly output: vscode.OutputChannel) {}

  get state(): ServerState {
    return this.currentState;
  }

  private setState(state: ServerState): void {
    this.currentState = state;
    this.stateChanged.fire(state);
  }

  /** Where the running server came from, or undefined when none runs. */
  get serverSource(): ServerSource | undefined {
    return this.runningServer?.source;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.startNow());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.stopNow());
  }

  /** Starts the server again, asked (a command, a change of settings): its crashes so far are forgotten. */
  restart(): Promise<void> {
    this.crashTimes = [];
    return this.startAgain();
  }

  private startAgain(): Promise<void> {
    return this.enqueue(async () => {
      await this.stopNow();
      await this.startNow();
    });
  }

  /**
   * The running client, after any queued start/restart has finished. When no
   * server runs, says why (with the fix) and returns undefined.
   */
  async runningClient(): Promise<LanguageClient | undefined> {
    await this.queue;
    if (this.client?.isRunning()) return this.client;
    if (this.currentState === 'disabled') {
      void vscode.window.showInformationMessage('skewlsp is disabled: set "skewlsp.enable" to true to use it.');
      return undefined;
    }
    if (!this.runningServer) void this.notifyMissingServer();
    else void vscode.window.showErrorMessage('skewlsp: the server is not running. Run "skewlsp: Restart Server".');
    return undefined;
  }

  /** Sends `workspace/didChangeConfiguration` with the current server settings. */
  async sendConfiguration(): Promise<void> {
    await this.queue;
    if (!this.client?.isRunning()) return;
    await this.client.sendNotification(
      DidChangeConfigurationNotification.type,
      didChangeConfigurationParams(serverSettingsFor(undefined)),
    );
  }

  dispose(): void {
    void this.stop();
    this.stateChanged.dispose();
  }

  /** Runs `step` after the previous one; an unexpected error is logged rather than left unhandled. */
  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step).catch((error: unknown) => {
      this.log(`Unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    });
    this.queue = next;
    return next;
  }

  private async startNow(): Promise<void> {
    const workspaceFolder = vscode.workspace.workspaceFolders?.[0];
    const settings = settingsFor(workspaceFolder?.uri);
    for (const problem of settings.problems) this.log(`Setting problem: ${problem}`);
    if (!settings.enabled) {
      this.log('skewlsp.enable is false: the server is not started.');
      this.setState('disabled');
      return;
    }
    this.setState('starting');

    const lookup = await findServer(
      {
        serverCommand: settings.serverCommand,
        interpreter: settings.interpreter.length > 0 ? settings.interpreter : undefined,
        pythonExtensionInterpreter: () => selectedPythonInterpreter(workspaceFolder?.uri),
        extraArgs: [...settings.extraArgs, ...serverLaunchArguments(settings)],
      },
      createNodeLookupHost(workspaceFolder?.uri.fsPath),
    );
    this.lastTried = lookup.tried;
    for (const line of lookup.tried) this.log(`Not used: ${line}`);
    if (!lookup.server) {
      this.runningServer = undefined;
      this.setState('missing');
      // Not awaited: the notification waits for a click, and the queue must not.
      void this.notifyMissingServer();
      return;
    }

    const server = lookup.server;
    this.runningServer = server;
    this.log(`Starting server (from ${server.source}): ${[server.command, ...server.args].join(' ')}`);
    const serverOptions: ServerOptions = {
      command: server.command,
      args: server.args,
      transport: TransportKind.stdio,
      options: { cwd: workspaceFolder?.uri.fsPath },
    };
    let ran = false;
    let told = false;
    const client: LanguageClient = new LanguageClient(
      CONFIG_SECTION,
      'skewlsp',
      serverOptions,
      clientOptions(
        this.output,
        settings,
        withoutRestarts(
          () => ran,
          () => client,
        ),
      ),
    );
    this.client = client;
    const failedToStart = (why: string): void => {
      // Said once per client, whichever comes first: start() settling without a running
      // server, or the client stopping on its own before the server ever ran.
      this.setState('failed');
      if (told) return;
      told = true;
      this.log(`Server failed to start: ${why}`);
      this.notifyWithLogs(
        `skewlsp: the server (${server.command}) failed to start. Check that skewlsp is installed there, or set skewlsp.path.`,
      );
    };
    client.onDidChangeState((event) => {
      // vscode-languageclient: 1 stopped, 2 running, 3 starting. A stop we asked for
      // detaches the client first (stopNow), so this client stopping on its own is a
      // crash or a start that failed: say so, not "stopped" (its own retries would
      // otherwise turn "server failed" into "stopped" a moment later).
      if (this.client !== client) return;
      if (event.newState === 2) {
        ran = true;
        this.setState('running');
      } else if (event.newState === 1) {
        if (ran) this.crashed(server.command);
        else failedToStart('the server stopped before it ever ran');
      }
    });
    try {
      await client.start();
      // (vscode-languageclient 9 also resolves start() for a server whose connection
      // closed while it started, when the error handler chose not to restart it)
      if (client.isRunning()) {
        ran = true;
        this.setState('running');
      } else if (this.client === client) failedToStart('the server stopped before it ever ran');
    } catch (error) {
      if (this.client === client) failedToStart(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * The server stopped on its own after it ran: started again with a new client, as a
   * change of settings starts it, unless it crashed more than {@link MAX_RESTARTS} times
   * in three minutes (then it stays failed, and one notification says so).
   */
  private crashed(command: string): void {
    const now = Date.now();
    this.crashTimes = [...this.crashTimes.filter((time) => now - time < RESTART_WINDOW_MS), now];
    if (this.crashTimes.length <= MAX_RESTARTS) {
      this.log('The server stopped on its own: starting it again.');
      void this.startAgain();
      return;
    }
    this.setState('failed');
    this.log(`The server crashed ${this.crashTimes.length} times in three minutes: not started again.`);
    this.notifyWithLogs(
      `skewlsp: the server (${command}) crashed ${this.crashTimes.length} times in three minutes and is not started again. Run "skewlsp: Restart Server" after reading the logs.`,
    );
  }

  /** An error notification whose **Show Logs** button opens the output channel (not awaited). */
  private notifyWithLogs(message: string): void {
    void vscode.window.showErrorMessage(message, SHOW_OUTPUT).then((choice) => {
      if (choice === SHOW_OUTPUT) this.output.show(true);
    });
  }

  private async stopNow(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.runningServer = undefined;
    if (this.currentState !== 'disabled') this.setState('stopped');
    if (!client) return;
    try {
      if (client.isRunning()) await client.stop();
      await client.dispose();
    } catch (error) {
      this.log(`Error while stopping the server: ${String(error)}`);
    }
  }

  private notifyMissingServer(): Promise<void> {
    return reportMissingServer(
      {
        showError: (message, ...actions) => Promise.resolve(vscode.window.showErrorMessage(message, ...actions)),
        openSettings: () =>
          Promise.resolve(vscode.commands.executeCommand('workbench.action.openSettings', CONFIG_SECTION)),
        showOutput: () => this.output.show(true),
        log: (line) => this.log(line),
      },
      this.lastTried,
    );
  }

  private log(line: string): void {
    this.output.appendLine(`[${new Date().toISOString()}] ${line}`);
  }
}

function settingsFor(scope: vscode.Uri | undefined): SkewlspSettings {
  const configuration = vscode.workspace.getConfiguration(CONFIG_SECTION, scope);
  return readSettings((key) => configuration.get(key));
}

function serverSettingsFor(scopeUri: string | undefined): ServerSettings {
  const scope = scopeUri ? vscode.Uri.parse(scopeUri) : vscode.workspace.workspaceFolders?.[0]?.uri;
  return buildServerSettings(settingsFor(scope));
}

/**
 * The language client never starts a server again by itself; {@link ServerController}
 * does, with a new client. After the client's own restart, a file closed and opened again
 * showed no diagnostics (the end-to-end test of a crash saw it), and a server that never
 * ran (a Python without skewlsp) would fail the same way on each retry, each failure
 * putting a notification of the client's own in front of the one that says what to do.
 * Errors on the connection of a server that ran get the client's usual handling (carry on
 * for three, then shut down); before it ran, a shutdown, silently.
 */
function withoutRestarts(ran: () => boolean, client: () => LanguageClient): ErrorHandler {
  let usual: ErrorHandler | undefined;
  const crashes = (): ErrorHandler => (usual ??= client().createDefaultErrorHandler());
  return {
    error: (error, message, count) =>
      ran() ? crashes().error(error, message, count) : { action: ErrorAction.Shutdown, handled: true },
    closed: () => ({ action: CloseAction.DoNotRestart, handled: true }),
  };
}

function clientOptions(
  output: vscode.OutputChannel,
  settings: SkewlspSettings,
  errorHandler: ErrorHandler,
): LanguageClientOptions {
  return {
    documentSelector: DOCUMENT_SELECTOR,
    errorHandler,
    // A server that exits as it starts (a Python without skewlsp) fails the initialize
    // request, often with "write EPIPE": without a handler the client shows that message
    // as a notification of its own, beside the one that says what to do. Logged instead;
    // the client stops, and start() failing says what to do (ServerController).
    initializationFailedHandler: (error) => {
      output.appendLine(`[${new Date().toISOString()}] Server initialization failed: ${String(error)}`);
      return false;
    },
    outputChannel: output,
    traceOutputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: buildInitializationOptions(settings),
    middleware: {
      workspace: {
        configuration: async (params, token, next) => {
          const defaults = await next(params, token);
          if (defaults instanceof ResponseError) return defaults;
          return answerConfigurationRequest(params.items, defaults, serverSettingsFor);
        },
      },
    },
  };
}
