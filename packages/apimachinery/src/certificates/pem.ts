/** One PEM block: `-----BEGIN <type>-----`, optional `Key: value` headers, base64 body, `-----END <type>-----`. */
export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const BLOCK = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Every well-formed PEM block in `text`, in order, as Go's encoding/pem finds them with repeated
 * `pem.Decode`: text around and between blocks is skipped, and so is a block whose body is not base64.
 * Pure; never throws.
 */
export function decodePemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const m of text.matchAll(BLOCK)) {
    const block = decodeBody(m[1] ?? '', m[2] ?? '');
    if (block) blocks.push(block);
  }
  return blocks;
}

function decodeBody(type: string, body: string): PemBlock | undefined {
  const lines = body.split(/\r?\n/);
  const headers: Record<string, string> = {};
  let i = 0;
  // Headers (RFC 1421) come first and end at a blank line.
  while (i < lines.length && (lines[i] ?? '').includes(':')) {
    const line = lines[i] ?? '';
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    i++;
  }
  if (i > 0 && (lines[i] ?? '').trim() === '') i++;
  const b64 = lines.slice(i).join('').replace(/[ \t]/g, '');
  if (!BASE64.test(b64) || b64.length % 4 !== 0) return undefined;
  return { type, headers, bytes: Buffer.from(b64, 'base64') };
}

/** Text as PEM: `-----BEGIN <type>-----`, base64 in 64-character lines, `-----END <type>-----`. */
export function encodePem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}
