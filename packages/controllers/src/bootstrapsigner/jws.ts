import { CompactSign } from 'jose';

const encoder = new TextEncoder();

/**
 * A detached JWS (`<header>..<signature>`, RFC 7515 appendix F) of `content` with HS256 keyed by
 * the full token `<tokenId>.<tokenSecret>`, header `{"alg":"HS256","kid":<tokenId>}` as
 * upstream. HMAC is deterministic, so the same input always yields the same string. A client
 * verifies by putting the base64url of `content` back between the dots (SPEC 4.12).
 */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const jws = await new CompactSign(encoder.encode(content))
    .setProtectedHeader({ alg: 'HS256', kid: tokenId })
    .sign(encoder.encode(`${tokenId}.${tokenSecret}`));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}
