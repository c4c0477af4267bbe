/**
 * Encodes D-Bus method calls by hand (little-endian, protocol version 1).
 * A walk sends thousands of small calls; building each through dbus-next's
 * generic marshaller costs more than the application takes to answer it.
 * Replies are still read by dbus-next.
 */

const HEADER = { path: 1, interface: 2, member: 3, destination: 6, signature: 8 } as const;
const METHOD_CALL = 1;

class Writer {
  private buffer = Buffer.allocUnsafe(256);
  length = 0;

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(bigger, 0, 0, this.length);
    this.buffer = bigger;
  }

  align(to: number): void {
    const padding = (to - (this.length % to)) % to;
    this.room(padding);
    this.buffer.fill(0, this.length, this.length + padding);
    this.length += padding;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.length++] = value;
  }

  /** Room for a length that is known only later; returns where to write it. */
  reserveUint32(): number {
    this.align(4);
    this.room(4);
    this.length += 4;
    return this.length - 4;
  }

  uint32(value: number, at = -1): void {
    if (at >= 0) {
      this.buffer.writeUInt32LE(value, at);
      return;
    }
    this.align(4);
    this.room(4);
    this.buffer.writeUInt32LE(value >>> 0, this.length);
    this.length += 4;
  }

  int32(value: number): void {
    this.align(4);
    this.room(4);
    this.buffer.writeInt32LE(value | 0, this.length);
    this.length += 4;
  }

  /** A string or object path: length, bytes, NUL. */
  string(value: string): void {
    const bytes = Buffer.byteLength(value);
    this.uint32(bytes);
    this.room(bytes + 1);
    this.buffer.write(value, this.length, 'utf8');
    this.length += bytes;
    this.buffer[this.length++] = 0;
  }

  /** A signature: one length byte, bytes, NUL. */
  signature(value: string): void {
    this.byte(value.length);
    this.room(value.length + 1);
    this.buffer.write(value, this.length, 'latin1');
    this.length += value.length;
    this.buffer[this.length++] = 0;
  }

  field(code: number, type: 'o' | 's' | 'g', value: string): void {
    this.align(8);
    this.byte(code);
    this.signature(type);
    if (type === 'g') this.signature(value);
    else this.string(value);
  }

  done(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** The end of the single complete type that starts at `at` in `signature`. */
function typeEnd(signature: string, at: number): number {
  const code = signature[at];
  if (code === 'a') return typeEnd(signature, at + 1);
  if (code === '(' || code === '{') {
    const close = code === '(' ? ')' : '}';
    let i = at + 1;
    while (signature[i] !== close) {
      if (i >= signature.length) throw new Error(`unbalanced signature '${signature}'`);
      i = typeEnd(signature, i) + 1;
    }
    return i;
  }
  return at;
}

const ALIGNMENT: Record<string, number> = { y: 1, b: 4, i: 4, u: 4, s: 4, o: 4, g: 1, a: 4, '(': 8, '{': 8 };

/**
 * Writes one value of the complete type `type`. Covers what AT-SPI's calls
 * take: strings, 32-bit integers, booleans, arrays, structs and dict entries.
 */
function writeValue(writer: Writer, type: string, value: unknown): void {
  const code = type[0];
  switch (code) {
    case 's': case 'o': writer.string(String(value)); return;
    case 'g': writer.signature(String(value)); return;
    case 'u': writer.uint32(Number(value)); return;
    case 'i': writer.int32(Number(value)); return;
    case 'b': writer.uint32(value ? 1 : 0); return;
    case 'y': writer.byte(Number(value)); return;
    case '(': {
      writer.align(8);
      const fields = value as unknown[];
      let i = 1;
      for (const field of fields) {
        const end = typeEnd(type, i);
        writeValue(writer, type.slice(i, end + 1), field);
        i = end + 1;
      }
      return;
    }
    case 'a': {
      const element = type.slice(1);
      const lengthAt = writer.reserveUint32();
      writer.align(ALIGNMENT[element[0]] ?? 1);
      const start = writer.length;
      if (element[0] === '{') {
        const [keyType, valueType] = [element.slice(1, typeEnd(element, 1) + 1), element.slice(typeEnd(element, 1) + 1, -1)];
        for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
          writer.align(8);
          writeValue(writer, keyType, key);
          writeValue(writer, valueType, entry);
        }
      } else {
        for (const item of value as unknown[]) writeValue(writer, element, item);
      }
      writer.uint32(writer.length - start, lengthAt);
      return;
    }
    default:
      throw new Error(`method calls with '${code}' arguments are not encoded here`);
  }
}

function writeBody(writer: Writer, signature: string, body: readonly unknown[]): void {
  let i = 0;
  for (const value of body) {
    if (i >= signature.length) throw new Error(`signature '${signature}' has fewer types than the ${body.length} values`);
    const end = typeEnd(signature, i);
    writeValue(writer, signature.slice(i, end + 1), value);
    i = end + 1;
  }
  if (i !== signature.length) throw new Error(`signature '${signature}' has more types than the ${body.length} values`);
}

export interface MethodCall {
  destination: string;
  path: string;
  interface: string;
  member: string;
  signature?: string;
  body?: readonly unknown[];
}

export function encodeMethodCall(serial: number, call: MethodCall): Buffer {
  const signature = call.signature ?? '';
  const body = new Writer();
  if (signature) writeBody(body, signature, call.body ?? []);

  const message = new Writer();
  message.byte(0x6c); // 'l': little-endian
  message.byte(METHOD_CALL);
  message.byte(0); // flags
  message.byte(1); // protocol version
  message.uint32(body.length);
  message.uint32(serial);
  const fieldsLengthAt = message.length;
  message.uint32(0);
  const fieldsStart = message.length;
  message.field(HEADER.path, 'o', call.path);
  message.field(HEADER.interface, 's', call.interface);
  message.field(HEADER.member, 's', call.member);
  message.field(HEADER.destination, 's', call.destination);
  if (signature) message.field(HEADER.signature, 'g', signature);
  message.uint32(message.length - fieldsStart, fieldsLengthAt);
  message.align(8);
  if (!body.length) return Buffer.from(message.done());
  return Buffer.concat([message.done(), body.done()]);
}
