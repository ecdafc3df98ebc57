/**
 * A small stand-in for the `vscode` module, swapped in by esbuild's alias when
 * the tests are bundled. It implements only what the extension's testable
 * modules touch; anything else is a test bug and fails loudly as undefined.
 */

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}

  static from(parts: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(parts.scheme, parts.authority ?? '', parts.path ?? '', parts.query ?? '', parts.fragment ?? '');
  }

  static parse(value: string): Uri {
    const match = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
    if (!match) throw new Error(`mock Uri.parse: cannot parse ${value}`);
    return new Uri(match[1], match[2] ?? '', decodeURIComponent(match[3] ?? ''), match[4] ?? '', match[5] ?? '');
  }

  static file(fsPath: string): Uri {
    return new Uri('file', '', fsPath, '', '');
  }

  get fsPath(): string {
    return this.path;
  }

  toString(): string {
    const authority = this.authority || this.scheme === 'file' ? `//${this.authority}` : '';
    const path = this.path.split('/').map(encodeURIComponent).join('/');
    return `${this.scheme}:${authority}${path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export class Disposable {
  constructor(private readonly onDispose: () => void) {}
  dispose(): void {
    this.onDispose();
  }
}

export class EventEmitter<T> {
  private listeners: Array<(value: T) => void> = [];
  readonly event = (listener: (value: T) => void): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((other) => other !== listener);
    });
  };
  fire(value: T): void {
    for (const listener of this.listeners) listener(value);
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** Fake installed extensions, keyed by id; tests set and clear entries. */
export const installedExtensions = new Map<
  string,
  { isActive: boolean; exports: unknown; activate(): Promise<unknown> }
>();

export const extensions = {
  getExtension(id: string) {
    return installedExtensions.get(id);
  },
};
