import protobuf from 'protobufjs';
import { messageFromJson } from './from-json.js';
import { loadProtoRoot } from './proto-root.js';
import { messageToJson } from './to-json.js';

// A message of our own embedding both value types the way upstream kinds do: value fields,
// pointer fields and map values.
const root = loadProtoRoot();
protobuf.parse(
  `syntax = "proto2";
   package shapes.test;
   import "cluster-options.proto";
   message Holder {
     optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 1;
     optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxSurge = 2 [(cluster.nullable) = true];
     map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 3;
   }`,
  root,
  { keepCase: true },
);
root.resolveAll();
const holder = root.lookupType('shapes.test.Holder');

const roundTrip = (json: Record<string, unknown>): unknown => {
  const wire = holder.encode(holder.fromObject(messageFromJson(holder, json))).finish();
  return messageToJson(holder, holder.toObject(holder.decode(wire), { longs: Number, bytes: Buffer }));
};

describe('IntOrString and Quantity in Protobuf', () => {
  it.each([
    [{ port: 8080 }, { port: 8080 }],
    [{ port: 'http' }, { port: 'http' }],
    [{ port: 0, maxSurge: '25%' }, { port: 0, maxSurge: '25%' }],
    [{ port: 1, maxSurge: 0 }, { port: 1, maxSurge: 0 }],
    // A value IntOrString left out is Go's zero value, which prints as 0.
    [{}, { port: 0 }],
    [{ limits: { cpu: '500m', memory: '128Mi' } }, { port: 0, limits: { cpu: '500m', memory: '128Mi' } }],
  ])('%j round-trips as %j', (input, expected) => {
    expect(roundTrip(input)).toEqual(expected);
  });

  it('writes the string form with type 1, as Go does', () => {
    const plain = messageFromJson(holder, { port: 'http' });
    expect(plain['port']).toEqual({ type: 1, intVal: 0, strVal: 'http' });
  });

  it.each([[{ port: 1.5 }], [{ port: 2 ** 31 }], [{ port: true }], [{ limits: { cpu: [] } }]])('%j is refused', (input) => {
    expect(() => messageFromJson(holder, input)).toThrow();
  });
});
