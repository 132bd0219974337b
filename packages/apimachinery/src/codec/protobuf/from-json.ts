import type { Field, Type } from 'protobufjs';
import { isInline, isNullable, jsonKeysOf, jsonNameOf, messageTypeOf, specialShape, TYPE_META_KEYS } from './field-shape.js';
import { parseTimestamp } from './time-format.js';

/** A plain object in the shape protobufjs' Type.fromObject expects. */
type Plain = Record<string, unknown>;

/**
 * Thrown when an object cannot be written as Protobuf: a field the message does not have, or a
 * value of the wrong type. Objects come from the server itself, so this signals a server bug and
 * surfaces as an internal error rather than being silently dropped.
 */
export class ProtobufEncodeError extends Error {
  constructor(path: string, message: string) {
    super(`${path || '<root>'}: ${message}`);
    this.name = 'ProtobufEncodeError';
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const INT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  sint32: [-(2 ** 31), 2 ** 31 - 1],
  sfixed32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  fixed32: [0, 2 ** 32 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  sint64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  sfixed64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  fixed64: [0, Number.MAX_SAFE_INTEGER],
};

function scalarFromJson(field: Field, value: unknown, path: string): unknown {
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') throw new ProtobufEncodeError(path, 'expected a string');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ProtobufEncodeError(path, 'expected a boolean');
      return value;
    case 'bytes':
      if (typeof value !== 'string' || !BASE64.test(value)) {
        throw new ProtobufEncodeError(path, 'expected a base64 string');
      }
      return Buffer.from(value, 'base64');
    case 'double':
    case 'float':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new ProtobufEncodeError(path, 'expected a number');
      return value;
    default: {
      const range = INT_RANGES[field.type];
      if (!range) throw new ProtobufEncodeError(path, `unsupported field type ${field.type}`);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < range[0] || value > range[1]) {
        throw new ProtobufEncodeError(path, `expected an integer that fits ${field.type}`);
      }
      return value;
    }
  }
}

function zeroScalar(field: Field): unknown {
  switch (field.type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    default:
      return 0;
  }
}

function timestampFromJson(value: unknown, path: string): Plain {
  if (typeof value !== 'string') throw new ProtobufEncodeError(path, 'expected an RFC 3339 time string');
  try {
    const { seconds, nanos } = parseTimestamp(value);
    return { seconds, nanos };
  } catch (e) {
    throw new ProtobufEncodeError(path, (e as Error).message);
  }
}

/** The value of a message-typed field; null/undefined mean "absent" and are handled by the caller. */
function nestedFromJson(type: Type, value: unknown, path: string): Plain {
  switch (specialShape(type)) {
    case 'time':
    case 'microTime':
      return timestampFromJson(value, path);
    case 'fieldsV1':
      return { Raw: Buffer.from(JSON.stringify(value), 'utf8') };
    case 'extraValue':
      if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) {
        throw new ProtobufEncodeError(path, 'expected a list of strings');
      }
      return { items: value };
    case 'rawExtension':
      // An embedded object (ControllerRevision.data) travels as its JSON text, as Go's RawExtension does.
      return { raw: Buffer.from(JSON.stringify(value), 'utf8') };
    case 'intOrString':
      return intOrStringFromJson(value, path);
    case 'quantity':
      return quantityFromJson(value, path);
    case 'json':
      // Go keeps no bytes for a JSON null (and writes it back as null).
      return value === null ? {} : { raw: Buffer.from(JSON.stringify(value), 'utf8') };
    case 'schemaOrArray':
      if (Array.isArray(value)) return { jSONSchemas: value.map((v: unknown, i) => messageFromJson(wrappedSchema(type, 'jSONSchemas', path), v, `${path}[${i}]`)) };
      return { schema: messageFromJson(wrappedSchema(type, 'schema', path), value, path) };
    case 'schemaOrBool':
      // Go's UnmarshalJSON: a boolean is `allows`; a schema allows too.
      if (typeof value === 'boolean') return { allows: value };
      return { allows: true, schema: messageFromJson(wrappedSchema(type, 'schema', path), value, path) };
    case 'schemaOrStringArray':
      if (Array.isArray(value)) {
        if (!value.every((v) => typeof v === 'string')) throw new ProtobufEncodeError(path, 'expected a list of strings');
        return { property: value };
      }
      return { schema: messageFromJson(wrappedSchema(type, 'schema', path), value, path) };
    default:
      return messageFromJson(type, value, path);
  }
}

/** The schema message type a JSONSchemaPropsOr* wrapper holds in `field`. */
function wrappedSchema(wrapper: Type, field: string, path: string): Type {
  const f = wrapper.fields[field];
  const t = f ? messageTypeOf(f) : undefined;
  if (!t) throw new ProtobufEncodeError(path, `${wrapper.name} has no field ${field}`);
  return t;
}

/** Go writes the number form with type 0 and intVal, the string form with type 1 and strVal. */
function intOrStringFromJson(value: unknown, path: string): Plain {
  if (value === undefined || (isPlainObject(value) && Object.keys(value).length === 0)) return { type: 0, intVal: 0, strVal: '' };
  if (typeof value === 'string') return { type: 1, intVal: 0, strVal: value };
  if (typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) {
    return { type: 0, intVal: value, strVal: '' };
  }
  throw new ProtobufEncodeError(path, 'expected an int32 or a string');
}

/** The stored JSON form of a Quantity is already its canonical string. */
function quantityFromJson(value: unknown, path: string): Plain {
  if (value === undefined || (isPlainObject(value) && Object.keys(value).length === 0)) return { string: '0' };
  if (typeof value === 'string') return { string: value };
  if (typeof value === 'number' && Number.isFinite(value)) return { string: String(value) };
  throw new ProtobufEncodeError(path, 'expected a quantity string');
}

function elementFromJson(field: Field, value: unknown, path: string): unknown {
  const nested = messageTypeOf(field);
  return nested ? nestedFromJson(nested, value, path) : scalarFromJson(field, value, path);
}

/** What upstream writes for a value field the object leaves unset. */
function absentValue(field: Field, path: string): unknown {
  const nested = messageTypeOf(field);
  if (!nested) return zeroScalar(field);
  const shape = specialShape(nested);
  // A zero Time is written as an empty message, not as seconds 0 (which would be 1970).
  return shape === 'time' || shape === 'microTime' || shape === 'rawExtension' ? {} : nestedFromJson(nested, {}, path);
}

/**
 * Converts the JSON form of an object into a plain object for protobufjs, writing what upstream's
 * generated marshallers write: value fields always (zero when unset; a zero Time as an empty
 * message), pointer and byte fields only when set, map entries in sorted key order.
 * `apiVersion`/`kind` keys are skipped where the message has no such field.
 * @throws ProtobufEncodeError on an unknown field or a value of the wrong type.
 */
export function messageFromJson(type: Type, json: unknown, path = ''): Plain {
  if (!isPlainObject(json)) throw new ProtobufEncodeError(path, 'expected an object');
  const keys = jsonKeysOf(type);
  for (const key of Object.keys(json)) {
    if (!keys.has(key) && !TYPE_META_KEYS.has(key)) {
      throw new ProtobufEncodeError(`${path}.${key}`, `field is not part of ${type.name}`);
    }
  }
  const out: Plain = {};
  for (const field of type.fieldsArray) {
    const name = field.name;
    const fieldPath = `${path}.${jsonNameOf(field)}`;
    const value = json[jsonNameOf(field)];
    const inlined = isInline(field) ? messageTypeOf(field) : undefined;
    if (inlined) {
      // The embedded struct's fields are the parent's own JSON keys.
      const own = jsonKeysOf(inlined);
      out[name] = messageFromJson(inlined, Object.fromEntries(Object.entries(json).filter(([k]) => own.has(k))), path);
    } else if (field.map) {
      if (value === undefined || value === null) continue;
      if (!isPlainObject(value)) throw new ProtobufEncodeError(fieldPath, 'expected an object');
      const entries: Plain = {};
      for (const key of Object.keys(value).sort()) {
        entries[key] = elementFromJson(field, value[key], `${fieldPath}[${key}]`);
      }
      out[name] = entries;
    } else if (field.repeated) {
      if (value === undefined || value === null) continue;
      if (!Array.isArray(value)) throw new ProtobufEncodeError(fieldPath, 'expected a list');
      out[name] = value.map((v: unknown, i) => elementFromJson(field, v, `${fieldPath}[${i}]`));
    } else if (value === undefined || value === null) {
      if (!isNullable(field)) out[name] = absentValue(field, fieldPath);
    } else {
      out[name] = elementFromJson(field, value, fieldPath);
    }
  }
  return out;
}
