/**
 * Reads the `skewlsp.*` settings into one typed, validated object.
 *
 * VS Code hands settings back as `unknown` JSON that a user may have typed by
 * hand; this module is the single place that turns that into types the rest of
 * the extension can trust, and says (instead of silently dropping) what it
 * could not use. It takes a plain getter so tests need no VS Code API.
 */
import { LOG_LEVELS, RUN_MODES, type SettingKey } from './constants';

export const SEVERITY_NAMES = ['error', 'warning', 'information', 'hint'] as const;
export type SeverityName = (typeof SEVERITY_NAMES)[number];

export type LogLevel = (typeof LOG_LEVELS)[number];
export type RunMode = (typeof RUN_MODES)[number];

export interface SkewlspSettings {
  /** `skewlsp.enable`: false stops the server. */
  enabled: boolean;
  /** Server command line from `skewlsp.path`: executable then arguments; empty when unset. */
  serverCommand: string[];
  /** `skewlsp.interpreter`: the interpreter then its own arguments (before `-m skewlsp`); empty when unset. */
  interpreter: string[];
  /** `skewlsp.args`, appended to whichever server command is found. */
  extraArgs: string[];
  codeLensEnabled: boolean | undefined;
  inlayHintsEnabled: boolean | undefined;
  select: string[] | undefined;
  ignore: string[] | undefined;
  severity: Record<string, SeverityName> | undefined;
  src: string[] | undefined;
  /** `skewlsp.docsUrl`: where the codes' links point (a team's copy of the rules page), undefined: the server's default. */
  docsUrl: string | undefined;
  /** `skewlsp.environment`: variables the kernels are assumed imported with (over the project's `environment`). */
  environment: Record<string, string> | undefined;
  /** `skewlsp.argv`: the command line the kernels are assumed run with (replaces the project's `argv`). */
  argv: string[] | undefined;
  /** `skewlsp.variants`: whether loops are decided under each other declared value too (the project's `variants`). */
  variants: boolean | undefined;
  /** `skewlsp.logLevel` (`--log-level`), undefined: the server's default. */
  logLevel: LogLevel | undefined;
  /** `skewlsp.logFile` (`--log-file`), undefined: no log file. */
  logFile: string | undefined;
  /** `skewlsp.run`, undefined: the server's default (`onType`). */
  run: RunMode | undefined;
  /** `skewlsp.debounce` in milliseconds, undefined: the server's default. */
  debounce: number | undefined;
  /** Human-readable problems with the raw values (logged to the output channel). */
  problems: string[];
}

/** Returns the raw value of `skewlsp.<key>` (what `WorkspaceConfiguration.get` returns). */
export type SettingReader = (key: SettingKey) => unknown;

const CODE_PATTERN = /^SKW[0-9]*$/;

/** Reads and validates every setting; invalid entries are left out and reported in `problems`. */
export function readSettings(read: SettingReader): SkewlspSettings {
  const problems: string[] = [];
  return {
    enabled: readOptionalBoolean('enable', read('enable'), problems) ?? true,
    serverCommand: readServerCommand(read('path'), problems),
    interpreter: readInterpreter(read('interpreter'), problems),
    extraArgs: readStringArray('args', read('args'), problems) ?? [],
    codeLensEnabled: readOptionalBoolean('codeLens.enable', read('codeLens.enable'), problems),
    inlayHintsEnabled: readOptionalBoolean('inlayHints.enable', read('inlayHints.enable'), problems),
    select: readCodeList('select', read('select'), problems),
    ignore: readCodeList('ignore', read('ignore'), problems),
    severity: readSeverityMap(read('severity'), problems),
    src: readStringArray('src', read('src'), problems),
    docsUrl: readDocsUrl(read('docsUrl'), problems),
    environment: readEnvironment(read('environment'), problems),
    argv: readStringArray('argv', read('argv'), problems),
    variants: readOptionalBoolean('variants', read('variants'), problems),
    logLevel: readLogLevel(read('logLevel'), problems),
    logFile: readOptionalString('logFile', read('logFile'), problems),
    run: readChoice('run', read('run'), RUN_MODES, problems),
    debounce: readDebounce(read('debounce'), problems),
    problems,
  };
}

/** The server's own command-line options that the settings choose (appended to its command). */
export function serverLaunchArguments(settings: Pick<SkewlspSettings, 'logLevel' | 'logFile'>): string[] {
  const args: string[] = [];
  if (settings.logLevel !== undefined) args.push('--log-level', settings.logLevel);
  if (settings.logFile !== undefined) args.push('--log-file', settings.logFile);
  return args;
}

function readChoice<T extends string>(
  key: SettingKey,
  raw: unknown,
  choices: readonly T[],
  problems: string[],
): T | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'string' && (choices as readonly string[]).includes(raw)) return raw as T;
  problems.push(`skewlsp.${key} must be one of ${choices.join(', ')}; ignoring ${JSON.stringify(raw)}`);
  return undefined;
}

/** A URL with `{code}` or `{code_lower}` in it (the server checks it again). */
function readDocsUrl(raw: unknown, problems: string[]): string | undefined {
  const url = readOptionalString('docsUrl', raw, problems);
  if (url === undefined) return undefined;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/./.test(url) || !/\{code(_lower)?\}/.test(url)) {
    problems.push(
      `skewlsp.docsUrl must be an absolute URL with {code} or {code_lower} in it; ignoring ${JSON.stringify(raw)}`,
    );
    return undefined;
  }
  return url;
}

/**
 * `skewlsp.interpreter` is an array, as ruff-vscode's `ruff.interpreter`: the interpreter,
 * then arguments for it. The string form of earlier versions still works, with a note.
 */
function readInterpreter(raw: unknown, problems: string[]): string[] {
  if (typeof raw === 'string') {
    const interpreter = raw.trim();
    if (interpreter === '') return [];
    problems.push(
      `skewlsp.interpreter as a string is deprecated: write it as an array, ${JSON.stringify([interpreter])}`,
    );
    return [interpreter];
  }
  const parts = readStringArray('interpreter', raw, problems) ?? [];
  return parts.length > 0 && parts[0].trim() !== '' ? parts : [];
}

/** Lower case, as ruff-vscode's; the upper-case names of earlier versions still work, with a note. */
function readLogLevel(raw: unknown, problems: string[]): LogLevel | undefined {
  if (typeof raw === 'string' && raw !== raw.toLowerCase()) {
    const lower = raw.toLowerCase();
    if ((LOG_LEVELS as readonly string[]).includes(lower)) {
      problems.push(`skewlsp.logLevel ${JSON.stringify(raw)} is deprecated: use ${JSON.stringify(lower)}`);
      return lower as LogLevel;
    }
  }
  return readChoice('logLevel', raw, LOG_LEVELS, problems);
}

function readDebounce(raw: unknown, problems: string[]): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > 10000) {
    problems.push(`skewlsp.debounce must be a whole number of milliseconds (0-10000); ignoring ${JSON.stringify(raw)}`);
    return undefined;
  }
  return raw;
}

/** `skewlsp.path` may be one executable (string) or an executable followed by its arguments (array). */
function readServerCommand(raw: unknown, problems: string[]): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  if (typeof raw === 'string') return [raw.trim()].filter((part) => part !== '');
  const parts = readStringArray('path', raw, problems) ?? [];
  return parts.length > 0 && parts[0].trim() !== '' ? parts : [];
}

function readOptionalString(key: SettingKey, raw: unknown, problems: string[]): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') {
    problems.push(`skewlsp.${key} must be a string; ignoring ${JSON.stringify(raw)}`);
    return undefined;
  }
  const trimmed = raw.trim();
  return trimmed === '' ? undefined : trimmed;
}

function readOptionalBoolean(key: SettingKey, raw: unknown, problems: string[]): boolean | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'boolean') {
    problems.push(`skewlsp.${key} must be true or false; ignoring ${JSON.stringify(raw)}`);
    return undefined;
  }
  return raw;
}

/** An array of strings; non-string entries are dropped and reported. `null`/unset gives undefined. */
function readStringArray(key: SettingKey, raw: unknown, problems: string[]): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    problems.push(`skewlsp.${key} must be an array of strings; ignoring ${JSON.stringify(raw)}`);
    return undefined;
  }
  const strings: string[] = [];
  for (const entry of raw) {
    if (typeof entry === 'string') strings.push(entry);
    else problems.push(`skewlsp.${key}: ignoring non-string entry ${JSON.stringify(entry)}`);
  }
  return strings;
}

/** Reason codes are compared upper-case (`skw020` means `SKW020`); anything that is not a code (prefix) is reported. */
function readCodeList(key: SettingKey, raw: unknown, problems: string[]): string[] | undefined {
  const entries = readStringArray(key, raw, problems);
  if (entries === undefined) return undefined;
  const codes: string[] = [];
  for (const entry of entries) {
    const code = entry.trim().toUpperCase();
    if (CODE_PATTERN.test(code)) codes.push(code);
    else problems.push(`skewlsp.${key}: ignoring ${JSON.stringify(entry)}, which is not a reason code such as SKW020`);
  }
  return codes;
}

function readSeverityMap(raw: unknown, problems: string[]): Record<string, SeverityName> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(
      `skewlsp.severity must be an object such as {"SKW010": "information"}; ignoring ${JSON.stringify(raw)}`,
    );
    return undefined;
  }
  const severity: Record<string, SeverityName> = {};
  for (const [rawCode, rawLevel] of Object.entries(raw as Record<string, unknown>)) {
    const code = rawCode.trim().toUpperCase();
    const level = typeof rawLevel === 'string' ? rawLevel.trim().toLowerCase() : rawLevel;
    if (!CODE_PATTERN.test(code)) {
      problems.push(`skewlsp.severity: ignoring key ${JSON.stringify(rawCode)}, which is not a reason code`);
    } else if (!isSeverityName(level)) {
      problems.push(
        `skewlsp.severity.${code}: ignoring ${JSON.stringify(rawLevel)}; use one of ${SEVERITY_NAMES.join(', ')}`,
      );
    } else {
      severity[code] = level;
    }
  }
  return severity;
}

/**
 * `{"NAME": "value"}`, as the server's `environment` setting (and `[tool.skewlint] environment`):
 * a name without `=` or NUL, a string value without NUL; other entries are left out and reported.
 */
function readEnvironment(raw: unknown, problems: string[]): Record<string, string> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`skewlsp.environment must be an object such as {"MODE": "fast"}; ignoring ${JSON.stringify(raw)}`);
    return undefined;
  }
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (name === '' || name.includes('=') || name.includes('\0')) {
      problems.push(`skewlsp.environment: ignoring ${JSON.stringify(name)}, which is not a variable name`);
    } else if (typeof value !== 'string' || value.includes('\0')) {
      problems.push(`skewlsp.environment.${name}: ignoring ${JSON.stringify(value)}; the value must be a string`);
    } else {
      environment[name] = value;
    }
  }
  return environment;
}

function isSeverityName(value: unknown): value is SeverityName {
  return typeof value === 'string' && (SEVERITY_NAMES as readonly string[]).includes(value);
}
