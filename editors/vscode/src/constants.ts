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
  showOutput: 'skewlsp.showOutput',
  previewLoop: 'skewlsp.previewLoop',
  explainCode: 'skewlsp.explainCode',
} as const;

/** Server-side command (workspace/executeCommand) that returns a code's explanation as markdown. */
export const SERVER_EXPLAIN_COMMAND = 'skewlsp.explain';

/** Custom request that returns `{range, original, rewritten}` for the loop at a position, or null. */
export const PREVIEW_REQUEST = 'skewlsp/preview';

/** URI scheme of the read-only virtual documents (loop previews and code explanations). */
export const PREVIEW_SCHEME = 'skewlsp-preview';

/** Every setting key under `skewlsp.`, as contributed in package.json. */
export const SETTING_KEYS = [
  'path',
  'interpreter',
  'args',
  'trace.server',
  'codeLens.enable',
  'inlayHints.enable',
  'select',
  'ignore',
  'severity',
  'src',
] as const;

export type SettingKey = (typeof SETTING_KEYS)[number];

/** Settings that decide which process is started: changing one restarts the server. */
export const LAUNCH_SETTING_KEYS: readonly SettingKey[] = ['path', 'interpreter', 'args'];

/** Settings that workspace files must not set in an untrusted workspace (they choose what gets executed). */
export const RESTRICTED_SETTING_KEYS: readonly SettingKey[] = LAUNCH_SETTING_KEYS;

/** The module run as `<python> -m skewlsp`, and the executable looked up on PATH. */
export const SERVER_MODULE = 'skewlsp';
export const SERVER_EXECUTABLE = 'skewlsp';

/** Documents the server handles: Python files on disk and unsaved Python buffers. */
export const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'python' },
  { scheme: 'untitled', language: 'python' },
];
