/** A parsed media range from Accept or Content-Type: `type/subtype;k=v`. Pure. */
export interface MediaType {
  type: string; // e.g. application/json
  params: Record<string, string>;
}

/** Parses one media type; parameters keep their case-sensitive values, names are lower-cased. */
export function parseMediaType(text: string): MediaType {
  const [head = '', ...rest] = text.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const name = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    params[name] = value;
  }
  return { type: head.trim().toLowerCase(), params };
}

/** Parses an Accept header into media ranges in the client's order, dropping q=0 entries. */
export function parseAccept(header: string | undefined): MediaType[] {
  if (!header || !header.trim()) return [];
  return header
    .split(',')
    .map((part) => parseMediaType(part))
    .filter((m) => m.type !== '' && m.params.q !== '0');
}

export const JSON_TYPE = 'application/json';
export const YAML_TYPE = 'application/yaml';
export const PROTOBUF_TYPE = 'application/vnd.cluster.protobuf';
/** Upstream's name, accepted as an alias so stock clients can use Protobuf (DESIGN Compatibility). */
export const PROTOBUF_ALIAS = 'application/vnd.kubernetes.protobuf';
export const WATCH_JSON_STREAM = 'application/json;stream=watch';

export function isProtobuf(type: string): boolean {
  return type === PROTOBUF_TYPE || type === PROTOBUF_ALIAS;
}

const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QUOTED = '"(?:[^"\\\\\\r\\n]|\\\\.)*"';
const MEDIA_TYPE = new RegExp(`^${TOKEN}(?:/${TOKEN})?$`);
const PARAM = new RegExp(`^[ \\t]*;[ \\t]*(${TOKEN})[ \\t]*=[ \\t]*(${TOKEN}|${QUOTED})`);

/**
 * Why a Content-Type is not a media type by the grammar Go's mime.ParseMediaType applies
 * (`type/subtype` tokens, then `; name=value` with token or quoted values, names unique, a
 * trailing `;` allowed), or undefined when it is one. Pure.
 */
export function mediaTypeSyntaxError(text: string): string | undefined {
  const semi = text.indexOf(';');
  const head = (semi < 0 ? text : text.slice(0, semi)).trim();
  if (!MEDIA_TYPE.test(head)) return 'mime: expected slash after first token';
  let rest = semi < 0 ? '' : text.slice(semi);
  const seen = new Set<string>();
  while (rest.trim() !== '') {
    if (rest.trim() === ';') return undefined;
    const m = PARAM.exec(rest);
    if (!m) return 'mime: invalid media parameter';
    const name = (m[1] as string).toLowerCase();
    if (seen.has(name)) return 'mime: duplicate parameter name';
    seen.add(name);
    rest = rest.slice(m[0].length);
  }
  return undefined;
}
