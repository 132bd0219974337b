import { readFile } from 'node:fs/promises';

/** The identity a static token stands for. */
export interface TokenUser {
  username: string;
  uid: string;
  groups: string[];
}

/**
 * Reads a static token file (`--token-auth-file`): CSV records `token,user name,user uid` with an
 * optional fourth column of comma-separated groups (quote it when it lists several). As upstream:
 * blank lines are skipped, a record with an empty token is skipped with a warning, a duplicate
 * token wins over the earlier one with a warning, columns after the fourth are ignored. Throws on
 * an unreadable file, on malformed CSV quoting and on a record with fewer than 3 columns.
 */
export async function parseTokenFile(
  path: string,
  opts: { warn?: (message: string) => void } = {},
): Promise<Map<string, TokenUser>> {
  return parseTokenCsv(await readFile(path, 'utf8'), path, opts.warn);
}

/** {@link parseTokenFile} on text already read; `path` only names the file in messages. */
export function parseTokenCsv(
  text: string,
  path: string,
  warn: (message: string) => void = () => {},
): Map<string, TokenUser> {
  const tokens = new Map<string, TokenUser>();
  let recordNum = 0;
  for (const { fields, line } of readCsv(text, path)) {
    if (fields.length < 3) {
      throw new Error(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length} (line ${line})`,
      );
    }
    recordNum++;
    const [token = '', username = '', uid = '', groups] = fields;
    if (token === '') {
      warn(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (tokens.has(token)) {
      warn(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    }
    tokens.set(token, { username, uid, groups: groups === undefined ? [] : groups.split(',') });
  }
  return tokens;
}

/** Serializes one token file record; the groups column is always quoted. */
export function formatTokenRecord(token: string, user: TokenUser): string {
  const quote = (s: string): string => (/[",\r\n]/.test(s) || s.startsWith(' ') ? `"${s.replaceAll('"', '""')}"` : s);
  const fields = [quote(token), quote(user.username), quote(user.uid)];
  if (user.groups.length > 0) fields.push(`"${user.groups.join(',').replaceAll('"', '""')}"`);
  return fields.join(',');
}

interface CsvRecord {
  fields: string[];
  /** 1-based line the record starts on. */
  line: number;
}

/**
 * RFC 4180 records with the rules of Go's `encoding/csv` (which upstream reads the file with):
 * quoted fields may hold commas, `""` and newlines, a quote inside an unquoted field is an error,
 * empty lines are skipped, `\r\n` ends a line like `\n`.
 */
function* readCsv(text: string, path: string): Generator<CsvRecord> {
  let line = 1;
  let i = 0;
  const fail = (startLine: number, errLine: number, column: number, why: string): never => {
    const where = startLine === errLine ? '' : `record on line ${startLine}; `;
    throw new Error(`token file '${path}': ${where}parse error on line ${errLine}, column ${column}: ${why}`);
  };
  while (i < text.length) {
    if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n')) {
      i += text[i] === '\r' ? 2 : 1;
      line++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    let column = 1;
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        column++;
        // Where Go's reader stands at the end of input: it does not count a final empty line.
        let lineEndColumn = column;
        for (;;) {
          if (i >= text.length) {
            const atLineStart = text.endsWith('\n');
            fail(startLine, atLineStart ? line - 1 : line, atLineStart ? lineEndColumn : column, 'extraneous or missing " in quoted-field');
          }
          const c = text[i] ?? '';
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              column += 2;
              continue;
            }
            i++;
            column++;
            break;
          }
          if (c === '\r' && text[i + 1] === '\n') {
            i++; // Go reads \r\n as \n
            continue;
          }
          field += c;
          i++;
          column++;
          if (c === '\n') {
            lineEndColumn = column;
            line++;
            column = 1;
          }
        }
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && !(next === '\r' && text[i + 1] === '\n')) {
          fail(startLine, line, column - 1, 'extraneous or missing " in quoted-field'); // at the closing quote
        }
      } else {
        const start = i;
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) i++;
        field = text.slice(start, i);
        const quote = field.indexOf('"');
        if (quote !== -1) fail(startLine, line, column + quote, 'bare " in non-quoted-field');
        column += field.length;
      }
      fields.push(field);
      if (text[i] === ',') {
        i++;
        column++;
        continue;
      }
      break; // end of line or of text
    }
    yield { fields, line: startLine };
  }
}
