import pino from 'pino';
import { controllerEnabled } from '@cluster/controllers';
import { garbageCollectorControllers } from './start-garbage-collector.js';

const logger = pino({ level: 'silent' });
const runsOurs = (controllers: string[], enableGarbageCollector: boolean) =>
  controllerEnabled('garbagecollector', garbageCollectorControllers({ controllers, enableGarbageCollector }, logger));

test.each<[string, string[], boolean, boolean]>([
  ['on by default under *', ['*'], true, true],
  ['turned off for an external collector', ['*', '-garbagecollector'], true, false],
  ['--enable-garbage-collector=false turns it off too', ['*'], false, false],
  ['--enable-garbage-collector=false wins over naming it', ['*', 'garbagecollector'], false, false],
  ['without * nothing runs', ['namespace'], true, false],
])('%s', (_n, controllers, enabled, runs) => {
  expect(runsOurs(controllers, enabled)).toBe(runs);
});

test('other controllers are left as named', () => {
  expect(garbageCollectorControllers({ controllers: ['*', 'tokencleaner'], enableGarbageCollector: false }, logger)).toEqual(['*', 'tokencleaner', '-garbagecollector']);
});
