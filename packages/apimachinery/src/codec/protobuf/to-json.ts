import type { Field, Type } from 'protobufjs';
import type { JsonObject, JsonValue } from '../../meta/types.js';
import { isInline, isJsonAlways, isNullable, jsonNameOf, messageTypeOf, specialShape } from './field-shape.js';
import { formatMicroTime, formatTime } from './time-format.js';

/** A decoded protobufjs message, read as a plain record of its fields. */
type Decoded = Record<string, unknown>;

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/**
 * Thrown when decoded Protobuf data has no JSON form (a time outside years 0-9999, FieldsV1 that
 * is not JSON). The envelope turns it into a 400 like any other undecodable body.
 */
export class JsonConversionError extends Error {
  constructor(path: string, message: string) {
    super(`${path || '<root>'}: ${message}`);
    this.name = 'JsonConversionError';
  }
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  // int64 fields decode to Long objects when the long package is available.
  if (typeof value === 'object' && value !== null && 'toNumber' in value) {
    return (value as { toNumber(): number }).toNumber();
  }
  return Number(value);
}

function scalarToJson(field: Field, value: unknown): JsonValue {
  switch (field.type) {
    case 'string':
      return String(value);
    case 'bool':
      return Boolean(value);
    case 'bytes':
      return Buffer.from(value as Uint8Array).toString('base64');
    default:
      return toNumber(value);
  }
}

function zeroOf(field: Field): JsonValue {
  switch (field.type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return '';
    default:
      return 0;
  }
}

const isZero = (v: JsonValue): boolean => v === '' || v === false || v === 0;

function timestampOf(msg: Decoded): { seconds: number; nanos: number } | undefined {
  // Upstream writes a zero Time as an empty message.
  if (!hasOwn(msg, 'seconds') && !hasOwn(msg, 'nanos')) return undefined;
  return { seconds: toNumber(msg['seconds'] ?? 0), nanos: toNumber(msg['nanos'] ?? 0) };
}

function nestedToJson(type: Type, msg: Decoded, path: string): JsonValue {
  switch (specialShape(type)) {
    case 'time':
    case 'microTime': {
      const ts = timestampOf(msg);
      if (!ts) return null;
      try {
        return specialShape(type) === 'time' ? formatTime(ts) : formatMicroTime(ts);
      } catch (e) {
        throw new JsonConversionError(path, (e as Error).message);
      }
    }
    case 'fieldsV1': {
      const raw = msg['Raw'];
      if (!(raw instanceof Uint8Array)) return null;
      try {
        return JSON.parse(Buffer.from(raw).toString('utf8')) as JsonValue;
      } catch {
        throw new JsonConversionError(path, 'FieldsV1 does not hold valid JSON');
      }
    }
    case 'extraValue':
      return ((msg['items'] as unknown[] | undefined) ?? []).map(String);
    case 'intOrString':
      // Type 1 is a string; anything else (0, or unset on a zero value) is the number.
      return toNumber(msg['type'] ?? 0) === 1 ? String(msg['strVal'] ?? '') : toNumber(msg['intVal'] ?? 0);
    case 'quantity':
      // A zero Quantity prints as "0" in Go.
      return typeof msg['string'] === 'string' && msg['string'] !== '' ? msg['string'] : '0';
    case 'rawExtension': {
      // An embedded object in a stored kind (ControllerRevision.data) is its JSON text; WatchEvent's
      // own envelope is handled by watch-frame.ts without this walker.
      const raw = msg['raw'];
      if (!(raw instanceof Uint8Array) || raw.length === 0) return null;
      try {
        return JSON.parse(Buffer.from(raw).toString('utf8')) as JsonValue;
      } catch {
        throw new JsonConversionError(path, 'an embedded object is not JSON');
      }
    }
    case 'json':
      return rawJson(msg['raw'], path);
    case 'schemaOrArray': {
      // Go's MarshalJSON: the list when it has entries, else the schema (null when unset).
      const list = (msg['jSONSchemas'] as Decoded[] | undefined) ?? [];
      if (list.length > 0) return list.map((m, i) => messageToJson(wrappedSchema(type, 'jSONSchemas'), m, `${path}[${i}]`));
      return hasOwn(msg, 'schema') && msg['schema'] ? messageToJson(wrappedSchema(type, 'schema'), msg['schema'] as Decoded, path) : null;
    }
    case 'schemaOrBool':
      if (hasOwn(msg, 'schema') && msg['schema']) return messageToJson(wrappedSchema(type, 'schema'), msg['schema'] as Decoded, path);
      return msg['allows'] === true;
    case 'schemaOrStringArray': {
      const names = (msg['property'] as unknown[] | undefined) ?? [];
      if (names.length > 0) return names.map(String);
      return hasOwn(msg, 'schema') && msg['schema'] ? messageToJson(wrappedSchema(type, 'schema'), msg['schema'] as Decoded, path) : null;
    }
    default:
      return messageToJson(type, msg, path);
  }
}

/** The schema message type a JSONSchemaPropsOr* wrapper holds in `field`. */
function wrappedSchema(wrapper: Type, field: string): Type {
  const f = wrapper.fields[field];
  const t = f ? messageTypeOf(f) : undefined;
  if (!t) throw new JsonConversionError(wrapper.name, `no schema field ${field}`);
  return t;
}

/** apiextensions JSON: its bytes are JSON text; absent or empty is null, as Go's JSON marshals it. */
function rawJson(raw: unknown, path: string): JsonValue {
  if (!(raw instanceof Uint8Array) || raw.length === 0) return null;
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8')) as JsonValue;
  } catch {
    throw new JsonConversionError(path, 'a JSON value is not valid JSON');
  }
}

function elementToJson(field: Field, value: unknown, path: string): JsonValue {
  const nested = messageTypeOf(field);
  return nested ? nestedToJson(nested, value as Decoded, path) : scalarToJson(field, value);
}

/**
 * Converts a decoded message to the JSON form the JSON API uses, following Go's encoding/json
 * over upstream's structs: value structs always appear (zero Time as null), pointer fields appear
 * when set, zero scalars are left out unless their tag has no omitempty, empty lists and maps are
 * left out, bytes become base64, int64 become numbers.
 * @throws JsonConversionError when a value has no JSON form.
 */
export function messageToJson(type: Type, msg: Decoded, path = ''): JsonObject {
  const out: JsonObject = {};
  for (const field of type.fieldsArray) {
    const name = field.name;
    const key = jsonNameOf(field);
    const fieldPath = `${path}.${key}`;
    const present = hasOwn(msg, name) && msg[name] !== null && msg[name] !== undefined;
    const value = msg[name];
    const inlined = isInline(field) ? messageTypeOf(field) : undefined;
    if (inlined) {
      Object.assign(out, messageToJson(inlined, present ? (value as Decoded) : {}, path));
    } else if (field.map) {
      const entries = present ? Object.entries(value as Record<string, unknown>) : [];
      if (entries.length === 0) continue;
      const obj: JsonObject = {};
      for (const [k, v] of entries) obj[k] = elementToJson(field, v, `${fieldPath}[${k}]`);
      out[key] = obj;
    } else if (field.repeated) {
      const items = present ? (value as unknown[]) : [];
      if (items.length > 0) out[key] = items.map((v, i) => elementToJson(field, v, `${fieldPath}[${i}]`));
    } else if (messageTypeOf(field)) {
      const nested = messageTypeOf(field) as Type;
      const v = present ? nestedToJson(nested, value as Decoded, fieldPath) : isNullable(field) ? undefined : nestedToJson(nested, {}, fieldPath);
      // An empty embedded object is left out, as Go's omitempty does for it.
      if (v !== undefined && !(v === null && specialShape(nested) === 'rawExtension')) out[key] = v;
    } else if (isNullable(field)) {
      if (present) out[key] = scalarToJson(field, value);
    } else {
      const v = present ? scalarToJson(field, value) : zeroOf(field);
      if (!isZero(v) || isJsonAlways(field)) out[key] = v;
    }
  }
  return out;
}
