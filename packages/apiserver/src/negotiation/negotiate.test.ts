import { negotiate } from './negotiate.js';
import { StatusError } from '@cluster/apimachinery';

const base = { metaGroup: 'meta.k8s.io', protobufOk: true, tableOk: true, pretty: false };
const kubectlGet = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('negotiate', () => {
  test.each([
    [undefined, base, { encoding: 'json', contentType: 'application/json' }],
    ['*/*', base, { encoding: 'json' }],
    ['application/yaml', base, { encoding: 'yaml' }],
    [kubectlGet, base, { encoding: 'json', as: 'Table' }],
    [kubectlGet, { ...base, tableOk: false }, { encoding: 'json', as: undefined as string | undefined }],
    ['application/json;as=Table;v=v1;g=meta.example.com,application/json', base, { as: undefined as string | undefined }],
    ['application/vnd.kubernetes.protobuf,application/json', base, { encoding: 'protobuf', contentType: 'application/vnd.kubernetes.protobuf' }],
    ['application/vnd.cluster.protobuf', base, { encoding: 'protobuf' }],
    ['application/vnd.kubernetes.protobuf,application/json', { ...base, protobufOk: false }, { encoding: 'json' }],
    ['application/json;q=0,application/yaml', base, { encoding: 'yaml' }],
  ])('Accept %s', (accept, opts, want) => {
    const got = negotiate(accept, opts);
    const { as, ...rest } = want as { as?: string };
    expect(got).toMatchObject(rest);
    if ('as' in want) expect(got.as).toBe(as);
  });
  test.each([['text/html'], ['application/xml,text/plain'], ['application/json;as=Table;v=v1;g=meta.k8s.io']])(
    '406 for %s when nothing fits',
    (accept) => {
      const opts = { ...base, tableOk: accept.includes('Table') ? false : true };
      try {
        negotiate(accept, opts);
        throw new Error('expected 406');
      } catch (e) {
        expect(e).toBeInstanceOf(StatusError);
        expect((e as StatusError).status).toMatchObject({ code: 406, reason: 'NotAcceptable' });
      }
    },
  );
});
