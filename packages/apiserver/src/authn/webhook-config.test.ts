import { parseWebhookConfig } from './webhook-config.js';

const files: Record<string, string> = { '/etc/wh/ca.pem': 'CA-PEM', '/abs/cert.pem': 'CERT', '/etc/wh/key.pem': 'KEY' };
const read = (p: string) => {
  if (!(p in files)) throw new Error(`ENOENT ${p}`);
  return files[p]!;
};
const parse = (text: string) => parseWebhookConfig(text, '/etc/wh/config.yaml', read);

describe('parseWebhookConfig', () => {
  test('files relative to the config file, absolute paths, and inline data', () => {
    expect(
      parse(
        [
          'clusters:',
          '- cluster: {server: "https://wh.example:8443/review", certificate-authority: ca.pem}',
          'users:',
          '- user: {client-certificate: /abs/cert.pem, client-key: key.pem, token: t0k}',
        ].join('\n'),
      ),
    ).toEqual({ server: 'https://wh.example:8443/review', caPem: 'CA-PEM', clientCertPem: 'CERT', clientKeyPem: 'KEY', token: 't0k' });
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(parse(`clusters:\n- cluster: {server: "https://x", certificate-authority-data: ${b64('INLINE')}, insecure-skip-tls-verify: true}\n`)).toEqual({
      server: 'https://x',
      caPem: 'INLINE',
      insecureSkipTlsVerify: true,
    });
  });

  test.each([
    ['no cluster', 'users: []', 'no cluster'],
    ['a server that is not a URL', 'clusters:\n- cluster: {server: wh.example}', 'must be an http(s) URL'],
    ['a certificate without its key', 'clusters:\n- cluster: {server: "https://x"}\nusers:\n- user: {client-certificate: /abs/cert.pem}', 'both a client certificate and its key'],
    ['a missing file', 'clusters:\n- cluster: {server: "https://x", certificate-authority: nope.pem}', 'ENOENT /etc/wh/nope.pem'],
    ['bad YAML', 'clusters: [', '/etc/wh/config.yaml:'],
  ])('%s is refused', (_, text, message) => {
    expect(() => parse(text)).toThrow(message);
  });
});
