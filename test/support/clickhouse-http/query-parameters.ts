/**
 * Query parameters as a ClickHouse server receives them (`param_<name>`, in its escaped text
 * form) turned back into the values chDB binds: chDB formats the values it is given, so the
 * server hands it what the text means, not the text.
 */

/** The declared type of each `{name:Type}` placeholder of a statement. */
export function declaredParameterTypes(statement: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const match of statement.matchAll(/\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^}]+?)\s*\}/g)) types.set(match[1]!, match[2]!);
  return types;
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '0': '\0' };

/** ClickHouse's escaped text (TabSeparated rules): a backslash takes the next character literally, or names a control character. */
export function unescapeText(text: string): string {
  let result = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === '\\' && index + 1 < text.length) {
      const next = text[++index]!;
      result += ESCAPES[next] ?? next;
    } else {
      result += char;
    }
  }
  return result;
}

class LiteralReader {
  private at = 0;

  constructor(private readonly text: string) {}

  read(): unknown {
    const value = this.value();
    this.skipSpaces();
    if (this.at !== this.text.length) throw new Error(`unexpected text at ${this.at} of a parameter literal`);
    return value;
  }

  private skipSpaces(): void {
    while (/\s/.test(this.text[this.at] ?? '')) this.at++;
  }

  private value(): unknown {
    this.skipSpaces();
    const char = this.text[this.at];
    if (char === '[') return this.array();
    if (char === "'") return this.string();
    const word = /^[^,\]\s]+/.exec(this.text.slice(this.at))?.[0];
    if (word === undefined) throw new Error(`a value was expected at ${this.at} of a parameter literal`);
    this.at += word.length;
    const upper = word.toUpperCase();
    if (upper === 'NULL') return null;
    if (upper === 'TRUE') return true;
    if (upper === 'FALSE') return false;
    if (/^-?\d+$/.test(word)) return Number.isSafeInteger(Number(word)) ? Number(word) : BigInt(word);
    return Number(word);
  }

  private array(): unknown[] {
    const values: unknown[] = [];
    this.at++;
    this.skipSpaces();
    if (this.text[this.at] === ']') {
      this.at++;
      return values;
    }
    for (;;) {
      values.push(this.value());
      this.skipSpaces();
      const separator = this.text[this.at++];
      if (separator === ']') return values;
      if (separator !== ',') throw new Error(`',' or ']' was expected at ${this.at - 1} of a parameter literal`);
    }
  }

  private string(): string {
    let raw = '';
    for (this.at++; this.at < this.text.length; this.at++) {
      const char = this.text[this.at]!;
      if (char === '\\') {
        raw += char + (this.text[++this.at] ?? '');
      } else if (char === "'") {
        this.at++;
        return unescapeText(raw);
      } else {
        raw += char;
      }
    }
    throw new Error('an unterminated string in a parameter literal');
  }
}

/** The value a parameter's text means for its declared type. */
export function parameterValue(text: string, type: string | undefined): unknown {
  if (text === '\\N') return null;
  const bare = (type ?? 'String').replace(/^(?:Nullable|LowCardinality)\((.*)\)$/, '$1');
  if (bare.startsWith('Array(')) return new LiteralReader(text).read();
  return unescapeText(text);
}
