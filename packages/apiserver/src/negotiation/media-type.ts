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
