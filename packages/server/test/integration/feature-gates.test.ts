import { useTestServer } from '../support/test-server.js';

// --feature-gates=APIListChunking=false: lists ignore `limit` (and `continue`), as with the gate
// off upstream; the other gates keep their defaults.
const ts = useTestServer(['--feature-gates=APIListChunking=false', '--controllers=-namespace']);
const CMS = '/api/v1/namespaces/default/configmaps';

test('with APIListChunking off a list with limit returns everything and no continue token', async () => {
  for (const name of ['a', 'b', 'c']) {
    expect((await ts().request('POST', CMS, { body: { metadata: { name } } })).status).toBe(201);
  }
  const r = await ts().request('GET', `${CMS}?limit=1`);
  expect(r.status).toBe(200);
  expect(r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['a', 'b', 'c']);
  expect(r.json.metadata.continue).toBeUndefined();
  const bogus = await ts().request('GET', `${CMS}?limit=1&continue=not-a-token`);
  expect(bogus.status).toBe(200);
  expect(bogus.json.items).toHaveLength(3);
});
