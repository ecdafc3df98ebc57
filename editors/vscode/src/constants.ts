/**
 * Identifiers shared by the manifest (package.json) and the code.
 *
 * They live in one vscode-free module so the manifest test can check that every
 * command the extension registers and every setting it reads is contributed,
 * and the other way round, without loading the VS Code API.
 */

/** The configuration section; also the language client id, so `skewlsp.trace.server` is honoured by vscode-languageclient. */
export const CONFIG_SECTION = 'skewlsp';

export const COMMANDS = {
  restartServer: 'skewlsp.restartServer',
  showLogs: 'skewlsp.showLogs',
  previewLoop: 'skewlsp.previewLoop',
  explainCode: 'skewlsp.explainCode',
  fixAll: 'skewlsp.fixAll',
} as const;

/** The server's "Fix all" code action kind: what `editor.codeActionsOnSave` names. */
export const FIX_ALL_KIND = 'source.fixAll.skewlint';

/**
 * Commands this extension implements with a richer view than the server's own
 * (`skewlsp.showPreview` / `skewlsp.showExplanation`): told to the server in
 * `initializationOptions.clientCommands`, so its lenses carry these instead.
 */
export const CLIENT_COMMANDS: readonly string[] = [COMMANDS.previewLoop, COMMANDS.explainCode];

/** Server-side command (workspace/executeCommand) that returns a code's explanation as markdown. */
export const SERVER_EXPLAIN_COMMAND = 'skewlsp.explain';

/** Server-side command that lists every reason code: `[{code, title, severity, verdict}]`. */
export const SERVER_LIST_CODES_COMMAND = 'skewlsp.listCodes';

/** Custom request that returns `{range, original, rewritten, others, document}` for the loop at a position, or null. */
export const PREVIEW_REQUEST = 'skewlsp/preview';

/** URI scheme of the read-only virtual documents (loop previews and code explanations). */
export const PREVIEW_SCHEME = 'skewlsp-preview';

/** Every setting key under `skewlsp.`, as contributed in package.json. */
export const SETTING_KEYS = [
  'enable',
  'path',
  'interpreter',
  'args',
  'trace.server',
  'logLevel',
  'logFile',
  'run',
  'debounce',
  'codeLens.enable',
  'inlayHints.enable',
  'select',
  'ignore',
  'severity',
  'src',
  'docsUrl',
  'environment',
  'argv',
  'variants',
] as const;

export type SettingKey = (typeof SETTING_KEYS)[number];

/** Settings that decide which process is started, and how: changing one restarts the server. */
export const LAUNCH_SETTING_KEYS: readonly SettingKey[] = [
  'enable',
  'path',
  'interpreter',
  'args',
  'logLevel',
  'logFile',
];

/**
 * Settings that workspace files must not set in an untrusted workspace: they choose what
 * gets executed, or (the log file) which file the server appends to.
 */
export const RESTRICTED_SETTING_KEYS: readonly SettingKey[] = ['path', 'interpreter', 'args', 'logFile'];

/** The server's `--log-level` values, lower case as ruff-vscode's `ruff.logLevel`. */
export const LOG_LEVELS = ['error', 'warning', 'info', 'debug'] as const;

/** When the server lints: as you type (after `skewlsp.debounce` ms), or on save. */
export const RUN_MODES = ['onType', 'onSave'] as const;

/** The module run as `<python> -m skewlsp`, and the executable looked up on PATH. */
export const SERVER_MODULE = 'skewlsp';
export const SERVER_EXECUTABLE = 'skewlsp';

/** Documents the server handles: Python files on disk and unsaved Python buffers. */
export const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'python' },
  { scheme: 'untitled', language: 'python' },
];
