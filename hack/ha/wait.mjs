// Waits until a URL answers 200 (etcd /health, a replica's /readyz), at most the given seconds.
// Usage: node hack/ha/wait.mjs <url> <seconds>
import { get } from 'node:https';
import { get as httpGet } from 'node:http';

const [url, seconds] = process.argv.slice(2);
const deadline = Date.now() + Number(seconds ?? '30') * 1000;
const once = () =>
  new Promise((resolve) => {
    const req = (url.startsWith('https') ? get : httpGet)(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
while (!(await once())) {
  if (Date.now() > deadline) {
    console.error(`${url} not healthy within ${seconds} s`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 200));
}
