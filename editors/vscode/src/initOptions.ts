/**
 * What the server is told about the user's settings.
 *
 * The same object is sent three ways so the server sees one shape whatever
 * way it asks: as `initializationOptions`, as the answer to
 * `workspace/configuration` for section `skewlsp`, and inside
 * `workspace/didChangeConfiguration` when a setting changes. Launch-only
 * settings (path, interpreter, args, trace) are client concerns and are not sent.
 */
import { CLIENT_COMMANDS, CONFIG_SECTION } from './constants';
import type { RunMode, SeverityName, SkewlspSettings } from './settings';

export interface ServerSettings {
  select?: string[];
  ignore?: string[];
  severity?: Record<string, SeverityName>;
  src?: string[];
  codeLens?: boolean;
  inlayHints?: boolean;
  run?: RunMode;
  debounce?: number;
  docsUrl?: string;
  environment?: Record<string, string>;
  argv?: string[];
  variants?: boolean;
}

/** What only `initializationOptions` carries: the commands this extension runs itself. */
export interface InitializationOptions extends ServerSettings {
  clientCommands: string[];
}

/** The settings plus `clientCommands`, so the server's lenses open this extension's diff view. */
export function buildInitializationOptions(settings: SkewlspSettings): InitializationOptions {
  return { ...buildServerSettings(settings), clientCommands: [...CLIENT_COMMANDS] };
}

/** Builds the settings object the server receives; unset settings are omitted so the server's own defaults apply. */
export function buildServerSettings(settings: SkewlspSettings): ServerSettings {
  const options: ServerSettings = {};
  if (settings.select !== undefined) options.select = settings.select;
  if (settings.ignore !== undefined) options.ignore = settings.ignore;
  if (settings.severity !== undefined) options.severity = settings.severity;
  if (settings.src !== undefined) options.src = settings.src;
  if (settings.codeLensEnabled !== undefined) options.codeLens = settings.codeLensEnabled;
  if (settings.inlayHintsEnabled !== undefined) options.inlayHints = settings.inlayHintsEnabled;
  if (settings.run !== undefined) options.run = settings.run;
  if (settings.debounce !== undefined) options.debounce = settings.debounce;
  if (settings.docsUrl !== undefined) options.docsUrl = settings.docsUrl;
  if (settings.environment !== undefined) options.environment = settings.environment;
  if (settings.argv !== undefined) options.argv = settings.argv;
  if (settings.variants !== undefined) options.variants = settings.variants;
  return options;
}

export interface ConfigurationItemLike {
  scopeUri?: string;
  section?: string;
}

/**
 * Answers a `workspace/configuration` request: items for `skewlsp` (or a
 * sub-section such as `skewlsp.select`) get the server settings for their
 * scope; every other item keeps the answer VS Code's default handler gave.
 */
export function answerConfigurationRequest(
  items: readonly ConfigurationItemLike[],
  defaultAnswers: readonly unknown[],
  serverSettingsFor: (scopeUri: string | undefined) => ServerSettings,
): unknown[] {
  return items.map((item, index) => {
    const section = item.section;
    if (section === CONFIG_SECTION) return serverSettingsFor(item.scopeUri);
    if (section !== undefined && section.startsWith(`${CONFIG_SECTION}.`)) {
      const key = section.slice(CONFIG_SECTION.length + 1) as keyof ServerSettings;
      return serverSettingsFor(item.scopeUri)[key] ?? null;
    }
    return defaultAnswers[index] ?? null;
  });
}

/** Params of the `workspace/didChangeConfiguration` notification sent when a `skewlsp.*` setting changes. */
export function didChangeConfigurationParams(settings: ServerSettings): { settings: { skewlsp: ServerSettings } } {
  return { settings: { [CONFIG_SECTION]: settings } as { skewlsp: ServerSettings } };
}
